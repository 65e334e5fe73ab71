package io.wheeltimer.sample;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throwaway PostgreSQL server for tests: a new cluster in a temporary directory on a free port of
 * 127.0.0.1, from Debian's {@code postgresql} package (the build installs it if missing:
 * {@code src/test/sh/ensure-postgresql.sh}). initdb refuses to run as root, so as root the cluster
 * runs as the {@code postgres} system user.
 */
final class PostgresCluster implements AutoCloseable {

    private final Path bin;
    private final Path dir;
    private final int port;
    private final boolean asPostgresUser;

    private PostgresCluster(Path bin, Path dir, int port, boolean asPostgresUser) {
        this.bin = bin;
        this.dir = dir;
        this.port = port;
        this.asPostgresUser = asPostgresUser;
    }

    /** Creates and starts a cluster with database {@code postgres}, user {@code test}, trust authentication. */
    static PostgresCluster start() throws IOException, InterruptedException {
        Path bin = findBin();
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir = Files.createTempDirectory("wheel-timer-pg-");
        if (root) {
            run(List.of("chown", "postgres:postgres", dir.toString()));
        }
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort();
        }
        PostgresCluster cluster = new PostgresCluster(bin, dir, port, root);
        cluster.pg(List.of(
                bin.resolve("initdb").toString(),
                "-D",
                dir.resolve("data").toString(),
                "-U",
                "test",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync"));
        cluster.pg(List.of(
                bin.resolve("pg_ctl").toString(),
                "-D",
                dir.resolve("data").toString(),
                "-w",
                "-t",
                "60",
                "-l",
                dir.resolve("server.log").toString(),
                "-o",
                "-p " + port + " -h 127.0.0.1 -k " + dir + " -c fsync=off -c max_connections=100",
                "start"));
        return cluster;
    }

    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    @Override
    public void close() throws IOException {
        try {
            pg(List.of(
                    bin.resolve("pg_ctl").toString(),
                    "-D",
                    dir.resolve("data").toString(),
                    "-m",
                    "immediate",
                    "-w",
                    "stop"));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while stopping the PostgreSQL test cluster", e);
        } finally {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    private void pg(List<String> command) throws IOException, InterruptedException {
        List<String> full = new ArrayList<>();
        if (asPostgresUser) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.addAll(command);
        run(full);
    }

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        if (!process.waitFor(90, TimeUnit.SECONDS) || process.exitValue() != 0) {
            throw new IllegalStateException(
                    "PostgreSQL test cluster: " + String.join(" ", command) + " failed:\n" + output);
        }
    }

    private static Path findBin() throws IOException {
        Path versions = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(versions)) {
            try (Stream<Path> list = Files.list(versions)) {
                var found = list.map(v -> v.resolve("bin"))
                        .filter(b -> Files.isExecutable(b.resolve("initdb")))
                        .max(Comparator.comparing(Path::toString));
                if (found.isPresent()) {
                    return found.get();
                }
            }
        }
        throw new IllegalStateException("No PostgreSQL server found under /usr/lib/postgresql/*/bin: these tests need "
                + "Debian's postgresql package (apt-get install -y postgresql; the build's ensure-postgresql.sh does "
                + "it when run as root).");
    }
}
