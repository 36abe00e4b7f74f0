package io.sparklance.spark.catalog

import org.apache.spark.sql.connector.catalog.TableChange
import org.apache.spark.sql.connector.catalog.TableChange._
import org.apache.spark.sql.types.{StructField, StructType}

import io.sparklance.format.{LanceField, LanceSchema}
import io.sparklance.spark.{LanceTable, WriteSchema}
import io.sparklance.table.Manifest
import io.sparklance.table.commit.{CommitRequest, Operation, TableCommitter}
import io.sparklance.util.Errors

/**
 * ALTER TABLE on a Lance table, the Lance way (rust/lance/src/dataset/schema_evolution.rs):
 * no data file is rewritten. ADD COLUMNS is a Merge that adds nullable fields with new ids and
 * keeps every fragment as it is (readers fill the new columns with nulls where a fragment has no
 * file for them); DROP COLUMN and RENAME COLUMN are a Project of the new schema (data files keep
 * the dropped column's values, which no version after it shows); SET / UNSET TBLPROPERTIES is
 * an UpdateConfig of the table config. One commit per kind of change, read at the version the
 * statement loaded. Changes Lance cannot make without rewriting data (a column's type,
 * nullability, position, a default value) are refused by name.
 */
object AlterLanceTable {

  def apply(table: LanceTable, changes: Seq[TableChange]): Unit = {
    val where = table.name()
    val (config, columns) = changes.partition(c => c.isInstanceOf[SetProperty] || c.isInstanceOf[RemoveProperty])
    if (columns.nonEmpty) commit(table, schemaChange(table, columns, where))
    if (config.nonEmpty) {
      val entries = config.map {
        case s: SetProperty => s.property() -> Some(s.value())
        case r: RemoveProperty => r.property() -> None
        case other => throw new IllegalStateException(s"not a property change: $other")
      }
      entries.map(_._1).find(TableSpec.SparkReserved).foreach(k => throw Errors.unsupported(s"changing the reserved property '$k' of a Lance table", where))
      commit(LanceTables.reload(table), Operation.UpdateConfig(Some(Operation.MapUpdate(entries.toMap, replace = false)), None, None, Map.empty))
    }
  }

  private def commit(table: LanceTable, operation: Operation): Unit = {
    val snapshot = table.snapshot
    new TableCommitter(table.stores.create(), snapshot.root).commit(CommitRequest(Some(snapshot.version), operation))
  }

  /** One Merge (columns added) or one Project (columns dropped or renamed); mixing both in one statement is refused. */
  private def schemaChange(table: LanceTable, changes: Seq[TableChange], where: String): Operation = {
    val manifest = table.snapshot.manifest
    val schema = manifest.schema
    def topLevel(names: Array[String], what: String): String = names match {
      case Array(n) => n
      case _ => throw Errors.unsupported(s"$what a nested field (${names.mkString(".")})", where)
    }
    def existing(name: String): LanceField = schema.fields.find(_.name.equalsIgnoreCase(name))
      .getOrElse(throw Errors.invalidArgument(s"$where has no column '$name' (columns: ${schema.fields.map(_.name).mkString(", ")})"))
    changes.find(c => !(c.isInstanceOf[AddColumn] || c.isInstanceOf[DeleteColumn] || c.isInstanceOf[RenameColumn])).foreach { other =>
      throw Errors.unsupported(s"ALTER TABLE ${describe(other)} on a Lance table (it would rewrite data)" + (other match {
        // Spark 4.2's schema evolution asks for this whenever a written column's type differs from the table's.
        case _: UpdateColumnType => "; when writing WITH SCHEMA EVOLUTION, cast the column to the table's type"
        case _ => ""
      }), where)
    }
    val adds = changes.collect { case a: AddColumn => a }
    if (adds.nonEmpty) {
      if (adds.length != changes.length)
        throw Errors.unsupported("adding columns and dropping or renaming others in one ALTER TABLE; run them one by one", where)
      val added = adds.map { a =>
        val name = topLevel(a.fieldNames(), "adding a column inside")
        if (!a.isNullable) throw Errors.unsupported(s"adding the NOT NULL column '$name' (its rows would have no value); add it nullable", where)
        if (a.position() != null) throw Errors.unsupported(s"adding column '$name' at a position (Lance adds columns last)", where)
        if (a.defaultValue() != null) throw Errors.unsupported(s"a default value for the new column '$name'", where)
        schema.fields.find(_.name.equalsIgnoreCase(name)).foreach(f => throw Errors.duplicateColumn(where, name, f.name))
        val field = StructField(name, a.dataType(), nullable = true)
        Option(a.comment()).fold(field)(field.withComment)
      }
      addColumns(manifest, added, where)
    } else {
      val fields = changes.foldLeft(schema.fields) {
        case (fs, d: DeleteColumn) =>
          val name = topLevel(d.fieldNames(), "dropping")
          if (!fs.exists(_.name.equalsIgnoreCase(name)) && d.ifExists()) fs
          else { existing(name); fs.filterNot(_.name.equalsIgnoreCase(name)) }
        case (fs, r: RenameColumn) =>
          val name = topLevel(r.fieldNames(), "renaming")
          val f = existing(name)
          WriteSchema.checkColumnName(r.newName(), where)
          fs.find(g => g.name.equalsIgnoreCase(r.newName()) && g.id != f.id).foreach(g => throw Errors.duplicateColumn(where, r.newName(), g.name))
          fs.map(g => if (g.id == f.id) g.copy(name = r.newName()) else g)
        case (_, other) => throw new IllegalStateException(s"not a column drop or rename: $other")
      }
      if (fields.isEmpty) throw Errors.unsupported("dropping every column of a table", where)
      Operation.Project(LanceSchema(fields, schema.metadata), preservesNullability = true)
    }
  }

  /**
   * The Merge that adds the nullable columns `added` to the table of `manifest`, keeping every
   * fragment (their names and types checked as a new table's, [[WriteSchema.lance]]): new field ids follow every id the schema or any data file uses, since a dropped
   * column's values stay in its files under its id, which a new column must not take (Rust:
   * Manifest::max_field_id).
   */
  def addColumns(manifest: Manifest, added: Seq[StructField], where: String): Operation.Merge = {
    val schema = manifest.schema
    val fresh = WriteSchema.lance(StructType(added.map(_.copy(nullable = true))), where)
    val used = manifest.fragments.iterator.flatMap(_.files).flatMap(_.fields).foldLeft(schema.maxId)(math.max)
    Operation.Merge(manifest.fragments, LanceSchema(schema.fields ++ renumber(fresh.fields, used + 1), schema.metadata),
      preservesNullability = true)
  }

  /** `fields` with ids from `first` on, depth-first, so that a new column's ids follow every id the table used. */
  private def renumber(fields: IndexedSeq[LanceField], first: Int): IndexedSeq[LanceField] = {
    var next = first
    def go(f: LanceField): LanceField = {
      val id = next
      next += 1
      f.copy(id = id, children = f.children.map(go))
    }
    fields.map(go)
  }

  private def describe(change: TableChange): String = change match {
    case _: UpdateColumnType => "ALTER COLUMN ... TYPE"
    case _: UpdateColumnNullability => "ALTER COLUMN ... SET/DROP NOT NULL"
    case _: UpdateColumnComment => "ALTER COLUMN ... COMMENT"
    case _: UpdateColumnPosition => "ALTER COLUMN ... FIRST/AFTER"
    case _: UpdateColumnDefaultValue => "ALTER COLUMN ... SET/DROP DEFAULT"
    case other => other.getClass.getSimpleName
  }
}
