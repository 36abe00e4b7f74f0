package io.sparklance.format.v21

import org.apache.arrow.memory.RootAllocator
import org.apache.hadoop.conf.Configuration
import org.scalatest.funsuite.AnyFunSuite

import io.sparklance.format.LanceField
import io.sparklance.storage.hadoop.HadoopObjectStore
import io.sparklance.table.Snapshot
import io.sparklance.testutil.{Golden, TableRows}

/** Reading some sub-fields of a struct opens only their columns and returns pylance's values. */
class NestedProjectionSuite extends AnyFunSuite {
  private val store = new HadoopObjectStore(new Configuration())

  /** `field` keeping only the children named by `keep` (dotted paths below it). */
  private def prune(field: LanceField, keep: Set[String]): LanceField =
    field.copy(children = field.children.filter(c => keep.exists(k => k == c.name || k.startsWith(c.name + ".")))
      .map(c => if (c.children.isEmpty) c else prune(c, keep.filter(_.startsWith(c.name + ".")).map(_.stripPrefix(c.name + ".")) ++
        (if (keep.contains(c.name)) c.children.map(_.name) else Nil))))

  private def check(column: String, keep: Set[String], project: Any => Any): Unit = {
    Seq("types_v2_1", "types_v2_2").foreach { name =>
      val ds = Golden.dataset(name)
      val allocator = new RootAllocator(Long.MaxValue)
      try {
        val (schema, rows) = Golden.expectedRows(ds.expectedFile(1), allocator)
        val idx = schema.getFields.indexOf(schema.findField(column))
        val snapshot = Snapshot.open(store, ds.uri, None)
        val field = prune(snapshot.manifest.schema.field(column).get, keep)
        val actual = TableRows.read(store, snapshot, allocator, 100, IndexedSeq(field)).map(_.head)
        assert(actual == rows.map(r => project(r(idx))), s"$name $column $keep")
      } finally allocator.close()
    }
  }

  private def only(keys: String*)(v: Any): Any = v match {
    case null => null
    case m: Map[_, _] => m.asInstanceOf[Map[String, Any]].filter { case (k, _) => keys.contains(k) }
  }

  test("one child of a struct") { check("struct_col", Set("b"), only("b")) }

  test("a grandchild of a nested struct") {
    check("nested_struct_col", Set("inner.y"), {
      case null => null
      case m: Map[_, _] => Map("inner" -> (m.asInstanceOf[Map[String, Any]]("inner") match {
        case null => null
        case i: Map[_, _] => i.asInstanceOf[Map[String, Any]].filter(_._1 == "y")
      }))
    })
  }

  test("the scalar child of a struct that also holds a list") { check("struct_list_col", Set("n"), only("n")) }
}
