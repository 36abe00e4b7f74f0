package io.sparklance.table.commit

import org.roaringbitmap.RoaringBitmap
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.{LanceField, LanceSchema}
import io.sparklance.table.{BasePath, Fragment, IndexMetadata}
import io.sparklance.table.commit.Operation._
import io.sparklance.table.commit.Verdict._
import io.sparklance.util.ScalaCompat._

/** Lance's conflict rules (conflict_resolver.rs at 01dd0bc), one test per operation being committed. */
class ConflictRulesSuite extends AnyFunSuite {

  private def frag(id: Long) = Fragment(id, IndexedSeq.empty, None, 10, None)
  private val schema = LanceSchema(IndexedSeq.empty, Map.empty)
  private def index(name: String, fields: Seq[Int], frags: Option[Seq[Int]]) =
    IndexMetadata("00000000-0000-0000-0000-000000000001", name, fields.toIndexedSeq, 1, frags.map(f => RoaringBitmap.bitmapOf(f: _*)), "x", None)

  private val append = Append(IndexedSeq(frag(0)))
  private val overwrite = Overwrite(IndexedSeq(frag(0)), schema)
  private def delete(ids: Long*) = Delete(ids.map(frag).toIndexedSeq, IndexedSeq.empty, "x > 1")
  private def update(ids: Long*) = Update(IndexedSeq.empty, ids.map(frag).toIndexedSeq, IndexedSeq(frag(0)), IndexedSeq(1), rewriteColumns = false,
    insertedRows = None, IndexedSeq.empty)
  private def rewrite(ids: Long*) = Rewrite(IndexedSeq(RewriteGroup(ids.map(frag).toIndexedSeq, IndexedSeq(frag(99)))))
  private val createIndex = CreateIndex(IndexedSeq(index("a_idx", Seq(0), Some(Seq(1, 2)))), IndexedSeq.empty)
  private def config(entries: (String, Option[String])*) = UpdateConfig(Some(MapUpdate(entries.toMap, replace = false)), None, None, Map.empty)
  private val memWal = UpdateMemWalState(IndexedSeq("s1" -> 3L))
  private def schema(ids: Int*) = LanceSchema(ids.map(i => LanceField(i, s"c$i", "int32", nullable = true, Map.empty, IndexedSeq.empty)).toIndexedSeq, Map.empty)
  private val project = Project(schema(0, 1), preservesNullability = true)
  private val merge = Merge(IndexedSeq(frag(1), frag(2)), schema(0, 1, 2), preservesNullability = true)

  private val everything: Seq[Operation] = Seq(append, overwrite, delete(1), update(1), createIndex, rewrite(1), merge, Restore(1),
    ReserveFragments(2), project, config("k" -> Some("v")), DataReplacement(IndexedSeq(1L -> IndexedSeq(0))), memWal,
    Clone(shallow = true, 1, "/x", None), UpdateBases(IndexedSeq(BasePath(1, Some("b"), isDatasetRoot = true, "/b"))), DataOverlay(IndexedSeq(1)))

  private def retryable(v: Verdict) = v.isInstanceOf[Retryable]
  private def incompatible(v: Verdict) = v.isInstanceOf[Incompatible]

  test("Append: only what replaces the table or the MemWAL state conflicts, and a nullability change retries") {
    val bad = everything.filter(t => ConflictRules.check(append, t) != Compatible).map(_.name).toSet
    assert(bad == Set("Overwrite", "Restore", "UpdateMemWalState"))
    assert(everything.filter(t => incompatible(ConflictRules.check(append, t))).map(_.name).toSet == bad)
    assert(retryable(ConflictRules.check(append, Project(schema(0), preservesNullability = false))))
    assert(retryable(ConflictRules.check(append, merge.copy(preservesNullability = false))))
    assert(incompatible(ConflictRules.check(append, Unknown(116))))
  }

  test("Overwrite: another overwrite retries (incompatible when both set a config key); config keys; MemWAL") {
    assert(retryable(ConflictRules.check(overwrite, overwrite)))
    assert(incompatible(ConflictRules.check(overwrite.copy(configUpserts = Map("k" -> "1")), overwrite.copy(configUpserts = Map("k" -> "2")))))
    assert(incompatible(ConflictRules.check(overwrite.copy(configUpserts = Map("k" -> "1")), config("k" -> None))))
    assert(ConflictRules.check(overwrite.copy(configUpserts = Map("k" -> "1")), config("j" -> Some("2"))) == Compatible)
    assert(incompatible(ConflictRules.check(overwrite, memWal)))
    Seq(append, delete(1), update(1), createIndex, rewrite(1), merge, Restore(1), ReserveFragments(1), project).foreach(t =>
      assert(ConflictRules.check(overwrite, t) == Compatible, t.name))
  }

  test("Delete: overlapping deletes, updates, rewrites and replacements retry; disjoint ones pass") {
    assert(ConflictRules.check(delete(1), delete(1, 2)).isInstanceOf[RebaseDeletions])
    assert(ConflictRules.check(delete(1), delete(2)) == Compatible)
    assert(ConflictRules.check(delete(1), update(1)).isInstanceOf[RebaseDeletions])
    assert(retryable(ConflictRules.check(delete(1), rewrite(1))) && ConflictRules.check(delete(1), rewrite(3)) == Compatible)
    assert(retryable(ConflictRules.check(delete(1), DataReplacement(IndexedSeq(1L -> IndexedSeq(0))))))
    assert(retryable(ConflictRules.check(delete(1), merge)))
    Seq(overwrite, Restore(1), memWal).foreach(t => assert(incompatible(ConflictRules.check(delete(1), t)), t.name))
    Seq(append, createIndex, project, config("k" -> Some("v")), DataOverlay(IndexedSeq(1))).foreach(t =>
      assert(ConflictRules.check(delete(1), t) == Compatible, t.name))
  }

  test("Update: as Delete, plus primary-key merge-inserts and MemWAL shards") {
    val guarded = update(1).copy(insertsKeys = true) // a MERGE into a primary-key table, no key filter recorded
    assert(retryable(ConflictRules.check(guarded, append)) && retryable(ConflictRules.check(guarded, update(5))))
    assert(ConflictRules.check(guarded, delete(5)) == Compatible)
    def keys(ks: Long*) = { val k = new io.sparklance.table.write.InsertedKeys(); ks.foreach(k.addLong); Some(k.filter(IndexedSeq(0))) }
    val keyed = update(1).copy(insertedRows = keys(1, 2))
    assert(retryable(ConflictRules.check(keyed, append)) && retryable(ConflictRules.check(keyed, update(5))))
    // Against another merge-insert's keys: disjoint ones commit together, overlapping ones retry.
    assert(ConflictRules.check(keyed, update(5).copy(insertedRows = keys(1000))) == Compatible)
    assert(retryable(ConflictRules.check(keyed, update(5).copy(insertedRows = keys(2, 3)))))
    assert(retryable(ConflictRules.check(keyed, update(5).copy(insertedRows = keys(1000).map(_.copy(fieldIds = IndexedSeq(1)))))))
    assert(ConflictRules.check(update(1), update(5)) == Compatible && ConflictRules.check(update(1), update(1)).isInstanceOf[RebaseDeletions])
    val merging = update(1).copy(compactedShards = IndexedSeq("s1" -> 2L))
    assert(incompatible(ConflictRules.check(merging, memWal)))
    assert(retryable(ConflictRules.check(update(1).copy(compactedShards = IndexedSeq("s1" -> 5L)), memWal)))
    assert(ConflictRules.check(update(1), memWal) == Compatible)
    assert(retryable(ConflictRules.check(update(1), DataOverlay(IndexedSeq(1)))))
    // A nullability change retries against an update too.
    assert(retryable(ConflictRules.check(update(1), Project(schema(0), preservesNullability = false))))
  }

  test("CreateIndex: same names, rewritten covered fragments, replaced indexed columns retry") {
    assert(retryable(ConflictRules.check(createIndex, createIndex)))
    assert(ConflictRules.check(createIndex, CreateIndex(IndexedSeq(index("b_idx", Seq(1), None)), IndexedSeq.empty)) == Compatible)
    // A new segment while the other side dropped that index.
    assert(retryable(ConflictRules.check(createIndex, CreateIndex(IndexedSeq.empty, IndexedSeq(index("a_idx", Seq(0), None))))))
    assert(retryable(ConflictRules.check(createIndex, rewrite(2))) && ConflictRules.check(createIndex, rewrite(7)) == Compatible)
    assert(retryable(ConflictRules.check(CreateIndex(IndexedSeq(index("c", Seq(0), None)), IndexedSeq.empty), rewrite(7))))
    assert(retryable(ConflictRules.check(createIndex, DataReplacement(IndexedSeq(5L -> IndexedSeq(0))))))
    Seq(append, delete(1), update(1), merge, project).foreach(t => assert(ConflictRules.check(createIndex, t) == Compatible, t.name))
    Seq(overwrite, Restore(1), memWal).foreach(t => assert(incompatible(ConflictRules.check(createIndex, t)), t.name))
  }

  test("CreateIndex over an in-place column rewrite: the new indices on a rewritten column stop covering the updated fragments") {
    // conflict_resolver.rs check_create_index_txn: prune_updated_fields_from_indices on the new indices.
    val mine = CreateIndex(IndexedSeq(index("a_idx", Seq(0), Some(Seq(1, 2, 3))), index("b_idx", Seq(1), Some(Seq(1, 2, 3))),
      index("c_idx", Seq(1), None)), IndexedSeq(index("b_idx", Seq(1), Some(Seq(1)))))
    val inPlace = update(2, 5).copy(newFragments = IndexedSeq.empty, rewriteColumns = true) // fields_modified: 1
    ConflictRules.check(mine, inPlace) match {
      case Rebased(c: CreateIndex) =>
        assert(c.newIndices.map(i => i.name -> i.fragments.map(_.toArray.toSeq)) ==
          Seq("a_idx" -> Some(Seq(1, 2, 3)), "b_idx" -> Some(Seq(1, 3)), "c_idx" -> None))
        assert(c.removedIndices == mine.removedIndices)
      case other => fail(s"expected the index to be rebased, got $other")
    }
    // The transaction checked is not changed under its holder.
    assert(mine.newIndices(1).fragments.get.toArray.toSeq == Seq(1, 2, 3))
    // Nothing indexed was rewritten where the indices cover: ours applies as it is.
    assert(ConflictRules.check(mine, update(7).copy(newFragments = IndexedSeq.empty, rewriteColumns = true)) == Compatible)
    assert(ConflictRules.check(mine, inPlace.copy(fieldsModified = IndexedSeq(4))) == Compatible)
    assert(ConflictRules.check(mine, inPlace.copy(fieldsModified = IndexedSeq.empty)) == Compatible)
    // The other order: an update over a committed index is compatible (the next manifest prunes it).
    assert(ConflictRules.check(inPlace, mine) == Compatible)
  }

  test("Rewrite: touched fragments retry; a committed fragment-reuse index needs exactly one new and one removed") {
    assert(retryable(ConflictRules.check(rewrite(1), delete(1))) && ConflictRules.check(rewrite(1), delete(2)) == Compatible)
    assert(retryable(ConflictRules.check(rewrite(1), rewrite(1))) && retryable(ConflictRules.check(rewrite(1), merge)))
    assert(retryable(ConflictRules.check(rewrite(1), DataOverlay(IndexedSeq(1)))))
    val fri = index("__lance_frag_reuse", Seq.empty, None)
    assert(ConflictRules.check(rewrite(1), CreateIndex(IndexedSeq(fri), IndexedSeq(fri))) == Compatible)
    assert(incompatible(ConflictRules.check(rewrite(1), CreateIndex(IndexedSeq(fri, fri), IndexedSeq.empty))))
    assert(retryable(ConflictRules.check(rewrite(2), createIndex)))
    Seq(overwrite, Restore(1)).foreach(t => assert(incompatible(ConflictRules.check(rewrite(1), t))))
    // An index the rewrite remapped, dropped or replaced by the other side (either order) retries;
    // another index dropped passes.
    val old = index("id_idx", Seq(0), Some(Seq(5)))
    val remapping = rewrite(1).copy(rewrittenIndices = IndexedSeq(RewrittenIndex(old.uuid, "00000000-0000-0000-0000-000000000002",
      "BTreeIndexDetails", ArraySeq.empty, 0, Map.empty)))
    val drop = CreateIndex(IndexedSeq.empty, IndexedSeq(old))
    assert(retryable(ConflictRules.check(remapping, drop)) && retryable(ConflictRules.check(drop, remapping)))
    val other = CreateIndex(IndexedSeq.empty, IndexedSeq(old.copy(uuid = "00000000-0000-0000-0000-000000000003")))
    assert(ConflictRules.check(remapping, other) == Compatible && ConflictRules.check(rewrite(1), drop) == Compatible)
  }

  test("Merge: data changes retry, schema replacements are incompatible") {
    Seq(append, delete(1), update(1), rewrite(1), merge, DataOverlay(IndexedSeq(1))).foreach(t => assert(retryable(ConflictRules.check(merge, t)), t.name))
    Seq(overwrite, Restore(1), project, memWal).foreach(t => assert(incompatible(ConflictRules.check(merge, t)), t.name))
    Seq(createIndex, ReserveFragments(1), config("k" -> Some("v"))).foreach(t => assert(ConflictRules.check(merge, t) == Compatible, t.name))
    // Schema metadata changed meanwhile: the merge's whole schema would drop it.
    assert(retryable(ConflictRules.check(merge, UpdateConfig(None, None, Some(MapUpdate(Map("a" -> Some("b")), replace = false)), Map.empty))))
  }

  test("Restore, ReserveFragments, Project, Clone") {
    assert(everything.filter(t => ConflictRules.check(Restore(1), t) != Compatible) == Seq(memWal))
    assert(everything.filter(t => ConflictRules.check(ReserveFragments(1), t) != Compatible).map(_.name) == Seq("Overwrite", "Restore"))
    assert(retryable(ConflictRules.check(project, merge)) && retryable(ConflictRules.check(project, project)))
    Seq(overwrite, Restore(1), memWal).foreach(t => assert(incompatible(ConflictRules.check(project, t))))
    assert(everything.forall(t => ConflictRules.check(Clone(shallow = false, 1, "/x", None), t) == Compatible || t.isInstanceOf[Unknown]))
  }

  test("UpdateConfig: key and metadata clashes are incompatible") {
    assert(incompatible(ConflictRules.check(config("k" -> Some("1")), config("k" -> None))))
    assert(ConflictRules.check(config("k" -> Some("1")), config("j" -> Some("1"))) == Compatible)
    val schemaMeta = UpdateConfig(None, None, Some(MapUpdate(Map("a" -> Some("b")), replace = false)), Map.empty)
    assert(incompatible(ConflictRules.check(schemaMeta, schemaMeta)) && incompatible(ConflictRules.check(schemaMeta, overwrite)))
    val fieldMeta = UpdateConfig(None, None, None, Map(3 -> MapUpdate(Map("x" -> None), replace = false)))
    assert(incompatible(ConflictRules.check(fieldMeta, fieldMeta)) && ConflictRules.check(config("k" -> Some("1")), overwrite) == Compatible)
    val table = UpdateConfig(None, Some(MapUpdate(Map("t" -> Some("1")), replace = true)), None, Map.empty)
    assert(incompatible(ConflictRules.check(table, UpdateConfig(None, Some(MapUpdate(Map("u" -> Some("1")), replace = false)), None, Map.empty))))
  }

  test("DataReplacement: removed targets are incompatible, rewritten ones retry") {
    val mine = DataReplacement(IndexedSeq(1L -> IndexedSeq(0)))
    assert(incompatible(ConflictRules.check(mine, Delete(IndexedSeq.empty, IndexedSeq(1), ""))))
    assert(ConflictRules.check(mine, delete(1)) == Compatible)
    assert(retryable(ConflictRules.check(mine, update(1))))
    assert(ConflictRules.check(mine, update(1).copy(newFragments = IndexedSeq.empty, fieldsModified = IndexedSeq(4))) == Compatible)
    assert(incompatible(ConflictRules.check(mine, Project(schema(1), preservesNullability = true))))
    assert(retryable(ConflictRules.check(mine, DataReplacement(IndexedSeq(1L -> IndexedSeq(0, 2))))))
    assert(ConflictRules.check(mine, DataReplacement(IndexedSeq(2L -> IndexedSeq(0)))) == Compatible)
    assert(retryable(ConflictRules.check(mine, createIndex)) && retryable(ConflictRules.check(mine, rewrite(1))))
  }

  test("DataOverlay, UpdateMemWalState, UpdateBases") {
    val overlay = DataOverlay(IndexedSeq(1))
    assert(retryable(ConflictRules.check(overlay, Delete(IndexedSeq.empty, IndexedSeq(1), ""))) && ConflictRules.check(overlay, delete(1)) == Compatible)
    assert(retryable(ConflictRules.check(overlay, update(1))) && retryable(ConflictRules.check(overlay, rewrite(1))))
    assert(incompatible(ConflictRules.check(overlay, overwrite)))
    assert(incompatible(ConflictRules.check(memWal, UpdateMemWalState(IndexedSeq("s1" -> 3L)))))
    assert(ConflictRules.check(memWal, UpdateMemWalState(IndexedSeq("s2" -> 3L))) == Compatible)
    Seq(append, overwrite, delete(1), merge, project).foreach(t => assert(incompatible(ConflictRules.check(memWal, t)), t.name))
    val bases = UpdateBases(IndexedSeq(BasePath(1, Some("b"), isDatasetRoot = true, "/b")))
    assert(incompatible(ConflictRules.check(bases, UpdateBases(IndexedSeq(BasePath(0, None, isDatasetRoot = true, "/b"))))))
    assert(ConflictRules.check(bases, UpdateBases(IndexedSeq(BasePath(2, Some("c"), isDatasetRoot = true, "/c")))) == Compatible)
  }
}
