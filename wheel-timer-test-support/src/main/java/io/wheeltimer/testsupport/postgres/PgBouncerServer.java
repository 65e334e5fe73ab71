package io.wheeltimer.testsupport.postgres;

import io.wheeltimer.testsupport.ThrowawayProcess;
import io.wheeltimer.testsupport.ThrowawayServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway PgBouncer in front of an {@link EmbeddedPostgresServer}, for tests of what a client does
 * behind a connection pooler: a process on a free port of 127.0.0.1 with its own configuration in a
 * temporary directory, {@code pool_mode=transaction} (a server session serves one transaction, then
 * any client), every database of the server reachable under its own name, user
 * {@value EmbeddedPostgresServer#USERNAME} with no password. Its server sessions are closed after
 * {@link #SERVER_LIFETIME} of life or {@link #SERVER_IDLE_TIMEOUT} idle, as a production pooler's are
 * after hours: whatever a client left on a session (a session lock) goes with it, while the client's
 * connection to the pooler goes on working.
 *
 * <p>The program is the machine's own {@code pgbouncer} (Debian's {@code pgbouncer} package; the builds
 * that use it run {@code ensure-pgbouncer.sh} of this module, which installs it if missing). It refuses to
 * run as root, so a JVM running as root runs it as {@code nobody} through {@code runuser}, as it runs
 * PostgreSQL. PgBouncer of this version keeps no server-side prepared statements across transactions:
 * its JDBC URLs ({@link #jdbcUrl(String)}) carry {@code prepareThreshold=0}.
 *
 * <p>{@link #close()} stops it and deletes its directory; a shutdown hook does the same if the JVM exits
 * first. The PostgreSQL server behind it is not touched. Thread-safe; every method throws unchecked
 * exceptions, with PgBouncer's log when it does not come up.
 */
public final class PgBouncerServer extends ThrowawayProcess {

    /** How long a server session lives at most: it is closed once idle after that. */
    public static final Duration SERVER_LIFETIME = Duration.ofSeconds(3);

    /** How long a server session may stay idle before it is closed. */
    public static final Duration SERVER_IDLE_TIMEOUT = Duration.ofSeconds(2);

    /** Server sessions per database and user: fewer than the clients, as in production. */
    public static final int POOL_SIZE = 20;

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    private static final int PORT_ATTEMPTS = 5;
    private static final List<String> LOCATIONS = List.of("/usr/sbin/pgbouncer", "/usr/bin/pgbouncer");

    private final Path program;
    private final ServerUser user;
    private final EmbeddedPostgresServer postgres;
    private final Path run;
    private final Path log;
    private Process process;

    private PgBouncerServer(Path program, ServerUser user, EmbeddedPostgresServer postgres, Path directory) {
        super("PgBouncer", directory, "pgbouncer-test-server-shutdown");
        this.program = program;
        this.user = user;
        this.postgres = postgres;
        this.run = directory.resolve("run");
        this.log = run.resolve("pgbouncer.log");
    }

    /** Starts a PgBouncer on a free port of 127.0.0.1 in front of {@code postgres}, which must be running. */
    public static PgBouncerServer start(EmbeddedPostgresServer postgres) {
        Path program = LOCATIONS.stream()
                .map(Path::of)
                .filter(Files::isExecutable)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("PgBouncerServer needs pgbouncer, which is at none of "
                        + LOCATIONS + ". Install Debian's pgbouncer package"
                        + " (wheel-timer-test-support/src/main/sh/ensure-pgbouncer.sh does, as root)."));
        PgBouncerServer server;
        try {
            ServerUser user = ServerUser.forCurrentProcess();
            Path directory = Files.createTempDirectory("wheel-timer-pgbouncer-");
            // Searchable by all: as root, PgBouncer runs as nobody and reads its configuration here.
            Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
            server = new PgBouncerServer(program, user, postgres, directory);
            Files.createDirectory(server.run);
            user.own(server.run);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not prepare a directory for PgBouncer", e);
        }
        server.startUp(
                () -> server.launchOnFreePort(PORT_ATTEMPTS, server.log, server::launch, "Address already in use"));
        return server;
    }

    /**
     * The JDBC URL of {@code database} through this pooler, with {@code prepareThreshold=0} (no server-side
     * prepared statements, which a transaction pooler cannot keep).
     */
    public synchronized String jdbcUrl(String database) {
        return "jdbc:postgresql://" + HOST + ":" + port() + "/"
                + ThrowawayServers.checkDatabaseName(database, EmbeddedPostgresServer.DATABASE_NAME_LENGTH)
                + "?prepareThreshold=0";
    }

    /** The user to connect as, {@value EmbeddedPostgresServer#USERNAME}, with no password. */
    public String username() {
        return EmbeddedPostgresServer.USERNAME;
    }

    /** The directory holding its configuration and log. */
    Path directory() {
        return home();
    }

    /** The pgbouncer process (under {@code runuser} when the JVM is root), while it runs. */
    synchronized java.util.Optional<ProcessHandle> process() {
        return java.util.Optional.ofNullable(process).map(Process::toHandle);
    }

    @Override
    public synchronized String toString() {
        return "PgBouncerServer[" + HOST + ":" + port() + " -> " + postgres + ", " + home() + "]";
    }

    private void launch() {
        Path ini = home().resolve("pgbouncer.ini");
        Path users = home().resolve("userlist.txt");
        try {
            Files.writeString(users, "\"" + EmbeddedPostgresServer.USERNAME + "\" \"\"\n");
            Files.writeString(
                    ini,
                    String.join(
                            "\n",
                            "[databases]",
                            "* = host=" + HOST + " port=" + postgres.port(),
                            "",
                            "[pgbouncer]",
                            "listen_addr = " + HOST,
                            "listen_port = " + port(),
                            "unix_socket_dir =",
                            "auth_type = trust",
                            "auth_file = " + users,
                            "logfile = " + log,
                            "pool_mode = transaction",
                            "server_lifetime = " + SERVER_LIFETIME.toSeconds(),
                            "server_idle_timeout = " + SERVER_IDLE_TIMEOUT.toSeconds(),
                            "default_pool_size = " + POOL_SIZE,
                            "max_client_conn = 500",
                            // PostgreSQL's JDBC driver sends it at every connection; PgBouncer does not track it.
                            "ignore_startup_parameters = extra_float_digits",
                            ""));
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write PgBouncer's configuration in " + home(), e);
        }
        List<String> command = user.command(List.of(program.toString(), ini.toString()));
        long logStart = ThrowawayServers.logSize(log);
        Process started =
                ThrowawayServers.start("PgBouncer test server", command, home(), home().resolve("pgbouncer.out"));
        ThrowawayServers.Awaited awaited = ThrowawayServers.awaitConnection(
                started,
                jdbcUrl(EmbeddedPostgresServer.DEFAULT_DATABASE) + "&connectTimeout=1",
                EmbeddedPostgresServer.USERNAME,
                START_TIMEOUT);
        if (awaited.accepting()) {
            process = started;
            return;
        }
        boolean exited = !started.isAlive();
        stop(started);
        throw new IllegalStateException("PgBouncer test server: pgbouncer "
                + (exited ? "exited with code " + started.exitValue() : "did not accept connections in time")
                + " (last connection error: " + awaited.lastError() + ")\n  command: " + String.join(" ", command)
                + "\n--- its log " + log + ", from this start on ---\n" + ThrowawayServers.readLog(log, logStart)
                + "--- its output ---\n" + ThrowawayServers.readLog(home().resolve("pgbouncer.out"), 0));
    }

    /**
     * Ends pgbouncer and {@code runuser} above it, if any: pgbouncer first (SIGTERM is its immediate
     * shutdown), so that none is left behind by a {@code runuser} killed before it could pass a signal on.
     */
    private static void stop(Process started) {
        List<ProcessHandle> all = new ArrayList<>(started.descendants().toList());
        all.add(started.toHandle());
        all.forEach(ProcessHandle::destroy);
        long end = System.nanoTime() + STOP_TIMEOUT.toNanos();
        for (ProcessHandle p : all) {
            try {
                p.onExit().get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (Exception e) {
                p.destroyForcibly();
            }
        }
    }

    /** Stops pgbouncer (its clients' connections end), if it runs. */
    @Override
    protected void kill() {
        if (process != null) {
            stop(process);
            process = null;
        }
    }
}
