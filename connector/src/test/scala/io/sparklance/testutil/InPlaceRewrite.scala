package io.sparklance.testutil

/**
 * Another writer patching a column in place, as pylance does it: LanceFragment.update_columns
 * (joined on `id`) writes a new data file for the column in one fragment, committed as an Update
 * with the modified field ids (update mode REWRITE_COLUMNS) read at a given version.
 */
object InPlaceRewrite {

  private val Script =
    """import sys, json, lance, pyarrow as pa
      |from lance import LanceOperation
      |uri, frag_id, column, expr, read = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5])
      |ds = lance.dataset(uri, version=read)
      |frag = ds.get_fragment(frag_id)
      |old = frag.to_table(columns=["id", column])
      |f = eval(expr)
      |new = [f(i, v) for i, v in zip(old.column("id").to_pylist(), old.column(column).to_pylist())]
      |patch = pa.table({"id": old.column("id"), column: pa.array(new, old.schema.field(column).type)})
      |meta, fields = frag.update_columns(patch, left_on="id", right_on="id")
      |op = LanceOperation.Update(updated_fragments=[meta], fields_modified=fields)
      |done = lance.LanceDataset.commit(uri, op, read_version=read)
      |print(json.dumps({"version": done.version, "fields": fields}))
      |""".stripMargin

  /**
   * Rewrites `column` of fragment `fragmentId` of the table at `uri`, read at `readVersion`,
   * to `newValue` (a Python function of the row's id and old value); returns the version
   * pylance committed and the field ids it recorded as modified.
   */
  def apply(uri: String, fragmentId: Long, column: String, newValue: String, readVersion: Long): (Long, Seq[Int]) = {
    val r = PylanceScript.run(Script, uri, fragmentId.toString, column, newValue, readVersion.toString)
    (r("version").toString.toDouble.toLong, r("fields").asInstanceOf[Seq[Any]].map(_.toString.toDouble.toInt))
  }
}
