package io.sparklance.table.proto

import java.io.File
import java.nio.file.Files
import java.time.Instant

import scala.jdk.CollectionConverters._

import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.table.{Fragment, ManifestFile}
import io.sparklance.table.commit.{NextManifest, Operation, Transaction}
import io.sparklance.testutil.Golden
import io.sparklance.util.Bytes

/**
 * Every manifest and transaction of the golden corpus (pylance 14 and older releases, branches,
 * clones, indices, stable row ids) survives parse and rebuild unchanged, unknown fields
 * included, and a commit on top of it carries forward what it does not change.
 */
class LosslessModelSuite extends AnyFunSuite {

  private def files(suffix: String): Seq[File] = {
    def walk(d: File): Seq[File] = Option(d.listFiles()).toSeq.flatten.flatMap(f => if (f.isDirectory) walk(f) else Seq(f))
    walk(Golden.root).filter(_.getName.endsWith(suffix)).sortBy(_.getPath)
  }
  private lazy val manifests = files(".manifest")
  private lazy val txns = files(".txn")

  private def bytesOf(f: File) = Bytes.wrap(f.getPath, 0, Files.readAllBytes(f.toPath))

  test("the corpus is large and varied") {
    assert(manifests.length > 150 && txns.length > 150)
    assert(manifests.exists(_.getPath.contains("/old/0.8.0/")) && manifests.exists(_.getPath.contains("/tree/")))
  }

  test("every manifest rebuilds into the message it was parsed from, and the file into the same bytes") {
    var identicalFiles = 0
    var identicalMessages = 0
    manifests.foreach { f =>
      val bytes = bytesOf(f)
      val m = ManifestFile.parse(bytes)
      val rebuilt = ManifestCodec.encodeManifest(m, m.indexSectionOffset, ManifestCodec.transactionField23(m))
      val reparsed = TableProtos.Manifest.parseFrom(rebuilt)
      assert(reparsed == m.message.manifest, f.getPath)
      assert(reparsed.getUnknownFields == m.message.manifest.getUnknownFields, f.getPath)
      // Fragments alone: the view models everything, so they rebuild even without their message.
      m.message.manifest.getFragmentsList.asScala.zip(m.fragments).foreach { case (raw, view) =>
        assert(ManifestCodec.encodeFragment(view, None) == raw.toBuilder.setUnknownFields(com.google.protobuf.UnknownFieldSet.getDefaultInstance).build(), f.getPath)
      }
      // Where the file is laid out as ours (pylance 1.0+: index section, inline transaction, manifest), byte for byte.
      // (Legacy tables keep dictionaries before the manifest message too; those files are laid out otherwise.)
      val inline = ManifestFile.inlineTransaction(bytes, m).map(_.toArray)
      val manifestStart = bytes.i64(bytes.length - 16)
      val sections = ManifestCodec.encodeIndexSection(m).fold(0)(_.length + 4) + inline.fold(0)(_.length + 4)
      // Bytes differ only where protobuf-java moves fields it does not know to the end of their
      // message, or packs a repeated field an old writer left unpacked; the messages are equal.
      val sameMessageBytes = java.util.Arrays.equals(rebuilt, bytes.copyOfRange(manifestStart + 4, (bytes.length - 20 - manifestStart).toInt, "m"))
      if (sameMessageBytes) identicalMessages += 1
      if (ManifestCodec.transactionField23(m).isDefined && sections == manifestStart && sameMessageBytes) {
        assert(java.util.Arrays.equals(ManifestFile.serialize(m, inline), bytes.toArray), f.getPath)
        identicalFiles += 1
      }
    }
    info(s"${manifests.length} manifests, $identicalMessages messages byte for byte, $identicalFiles whole files byte for byte")
    assert(identicalFiles > 100 && identicalMessages >= manifests.length * 9 / 10)
  }

  test("every transaction, in .txn files and inline, rebuilds into the same message and bytes") {
    var identical = 0
    var appends = 0
    val inline = manifests.flatMap { f =>
      val b = bytesOf(f)
      ManifestFile.inlineTransaction(b, ManifestFile.parse(b))
    }
    (txns.map(bytesOf) ++ inline).foreach { b =>
      val t = TransactionCodec.parse(b)
      val rebuilt = TransactionCodec.encode(t)
      assert(TransactionProtos.Transaction.parseFrom(rebuilt) == t.message.get.transaction, b.path)
      // An Append rebuilt from the view alone (no message): the view models all of it.
      if (t.operation.isInstanceOf[Operation.Append]) {
        val fresh = TransactionProtos.Transaction.parseFrom(TransactionCodec.encode(t.copy(message = None)))
        assert(fresh == t.message.get.transaction, b.path)
        appends += 1
      }
      if (java.util.Arrays.equals(rebuilt, b.toArray)) identical += 1
    }
    val ops = (txns.map(bytesOf) ++ inline).map(TransactionCodec.parse(_).operation.name).groupBy(identity).map { case (k, v) => s"$k ${v.length}" }
    info(s"${txns.length} .txn files and ${inline.length} inline transactions (${ops.mkString(", ")}); $identical byte for byte")
    // As for manifests: the bytes differ only where protobuf-java reorders unknown fields.
    assert(identical >= (txns.length + inline.length) * 95 / 100)
    assert(ops.size >= 8 && appends > 20)
  }

  test("an append on every latest manifest of the corpus changes only what an append changes") {
    val latest = manifests.groupBy(_.getParentFile).values.map(_.map(f => f -> ManifestFile.parse(bytesOf(f))).maxBy(_._2.version))
    var checked = 0
    latest.foreach { case (f, base) =>
      if (base.writerVersion.isDefined && !ManifestCodec.hasManifestDictionaries(base)) {
        val added = Fragment(0, IndexedSeq.empty, None, 3, None)
        val next = NextManifest(Some(base), Transaction(base.version, "u", Operation.Append(IndexedSeq(added))),
          NextManifest.Context(Instant.ofEpochSecond(1), Some("x.txn")))
        val out = TableProtos.Manifest.parseFrom(ManifestCodec.encodeManifest(next, None, Some(0)))
        val in = base.message.manifest
        // Carried forward: schema, old fragments as they were, config, metadata, bases, branch, unknown fields.
        assert(out.getFieldsList == in.getFieldsList && out.getSchemaMetadataMap == in.getSchemaMetadataMap, f.getPath)
        assert(out.getFragmentsList.asScala.take(in.getFragmentsCount) == in.getFragmentsList.asScala, f.getPath)
        assert(out.getConfigMap == in.getConfigMap && out.getTableMetadataMap == in.getTableMetadataMap, f.getPath)
        assert(out.getBasePathsList == in.getBasePathsList && out.getBranch == in.getBranch, f.getPath)
        assert(out.getUnknownFields == in.getUnknownFields && out.getMaxAllocatedFieldId == in.getMaxAllocatedFieldId, f.getPath)
        assert(out.getDataFormat == in.getDataFormat && out.getNextRowId >= in.getNextRowId, f.getPath)
        // Changed: version, the new fragment, the writer, the transaction, the time.
        assert(out.getVersion == in.getVersion + 1 && out.getFragmentsCount == in.getFragmentsCount + 1)
        assert(out.getWriterVersion.getLibrary == "spark-lance" && out.getTransactionFile == "x.txn" && out.getTimestamp.getSeconds == 1)
        assert(out.getVersionAuxData == 0 && !out.hasTransactionSectionV1 && out.getTransactionSection == 0)
        checked += 1
      }
    }
    info(s"$checked tables")
    assert(checked > 40)
  }
}
