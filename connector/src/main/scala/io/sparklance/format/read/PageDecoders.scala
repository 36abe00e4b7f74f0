package io.sparklance.format.read

import io.sparklance.format.{LanceFileReader, PageInfo}
import io.sparklance.format.layout.PageLayout

// Spec: lance-format/lance docs/src/format/file/encoding.md ("Structural encodings").
// Chooses the decoder for a page's layout.

object PageDecoders {
  def open(file: LanceFileReader, page: PageInfo, layout: PageLayout, where: String): PageUnits = layout match {
    case m: PageLayout.MiniBlock => new MiniBlockPage(file.readBuffers(page, where), page.numRows, m, where)
    case c: PageLayout.Constant => ConstantPage.decode(file.readBuffers(page, where), page.numRows, c, where)
    case f: PageLayout.FullZip => FullZipPage.decode(file.readBuffers(page, where), page.numRows, f, where)
    case b: PageLayout.Blob => new BlobPage(open(file, page, b.inner, where), b, where)
  }

  /** Units for a page decoded in one piece. */
  def single(data: LeafData): PageUnits = new PageUnits {
    private var done = false
    override def next(): Option[LeafData] = if (done) None else { done = true; Some(data) }
  }
}
