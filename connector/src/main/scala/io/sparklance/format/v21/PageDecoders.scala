package io.sparklance.format.v21

import io.sparklance.format.{LanceFileReader, PageInfo}
import io.sparklance.format.layout.PageLayout

// Spec: lance-format/lance docs/src/format/file/encoding.md ("Structural encodings").
// Chooses the decoder for a page's layout.

object PageDecoders {
  def open(file: LanceFileReader, page: PageInfo, layout: PageLayout, where: String): PageUnits = layout match {
    case m: PageLayout.MiniBlock =>
      // The chunk data (buffer 1) is read lazily, window by window; the small buffers at once.
      if (page.numBuffers < 2) throw io.sparklance.util.Errors.corrupt(file.path, s"$where: a mini-block page needs at least 2 buffers")
      val small = file.readBuffers(page.copy(bufferOffsets = page.bufferOffsets.patch(1, Nil, 1), bufferSizes = page.bufferSizes.patch(1, Nil, 1)), where)
      val data = file.lazyBuffer(page.bufferOffsets(1), page.bufferSizes(1), s"$where chunk data")
      new MiniBlockPage(small, data, page.numRows, m, where)
    case c: PageLayout.Constant => ConstantPage.decode(file.readBuffers(page, where), page.numRows, c, where)
    case f: PageLayout.FullZip if FullZipStridedPage.applies(f) =>
      // Only the value buffer (0) is read, window by window; the repetition index is not needed.
      if (page.numBuffers < 1 || page.bufferOffsets.isEmpty || page.bufferSizes.isEmpty)
        throw io.sparklance.util.Errors.corrupt(file.path, s"$where: a full-zip page has no buffers")
      new FullZipStridedPage(file.lazyBuffer(page.bufferOffsets(0), page.bufferSizes(0), s"$where values"), page.numRows, f, where)
    case f: PageLayout.FullZip => FullZipPage.decode(file.readBuffers(page, where), page.numRows, f, where)
    case b: PageLayout.Blob => new BlobPage(open(file, page, b.inner, where), b, where)
  }

  /** Units for a page decoded in one piece. */
  def single(data: LeafData): PageUnits = new PageUnits {
    private var done = false
    override def next(): Option[LeafData] = if (done) None else { done = true; Some(data) }
  }
}
