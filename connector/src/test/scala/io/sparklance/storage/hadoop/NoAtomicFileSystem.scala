package io.sparklance.storage.hadoop

import java.net.URI

/**
 * Local files under the scheme `nocommit:`: a Hadoop file system that can create, list and
 * delete, but offers no atomic create-if-absent (no conditional-create capability).
 */
final class NoAtomicFileSystem extends LocalFileSystemAs(URI.create("nocommit:///"))
