package io.wheeltimer.testsupport.mariadb;

import io.wheeltimer.testsupport.ThrowawayProcess;
import io.wheeltimer.testsupport.ThrowawayServer;
import io.wheeltimer.testsupport.ThrowawayServers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.mariadb.jdbc.MariaDbDataSource;

/**
 * A throwaway MariaDB server for tests: a new data directory in a temporary directory, listening on a free port
 * of 127.0.0.1, user {@value #USERNAME} with no password and every privilege, InnoDB with its log flushed
 * about once a second rather than at each commit (fast; a crash of the server loses a second that no test
 * cares about), room for {@value #MAX_CONNECTIONS} connections.
 *
 * <p>The server is the machine's own {@code mariadbd} (Debian's {@code mariadb-server} package; the build
 * runs {@code ensure-mariadb.sh} of this module, which installs it if missing), started with
 * {@code --no-defaults}: nothing of the machine's configuration, service or data is used or touched. So the
 * server's character set is MariaDB's compiled default, {@code latin1}, not the {@code utf8mb4} of Debian's
 * configuration: a table that does not fix its own character set shows it. When the JVM runs as root (as CI
 * does) the server runs as root too ({@code --user=root}, which MariaDB requires for that).
 *
 * <p>{@link #stop()} and {@link #startAgain()} take the server down and bring it back on the same port with the
 * same data, to test what a client does while its database is away. {@link #close()} kills the server and
 * deletes its directory; a shutdown hook does the same if the JVM exits first, so no server outlives its JVM
 * unless that JVM is killed outright. Starting one costs a few seconds (most of it creating the system
 * tables), so share one per test JVM or class and give each test its own database with
 * {@link #createDatabase(String)}.
 *
 * <p>Thread-safe. Every method throws unchecked exceptions: {@link IllegalStateException} with the failing
 * command and the server's log when MariaDB does not come up or go down.
 */
public final class MariaDbServer extends ThrowawayProcess implements ThrowawayServer {

    /** The user every test connects as; it needs no password and may do anything. */
    public static final String USERNAME = "test";

    /** The database every server starts with, to connect to before any other exists. */
    public static final String DEFAULT_DATABASE = "mysql";

    /** The server's {@code max_connections}. */
    public static final int MAX_CONNECTIONS = 300;

    private static final int DATABASE_NAME_LENGTH = 64;
    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration STOP_TIMEOUT = Duration.ofMinutes(1);
    private static final int PORT_ATTEMPTS = 5;

    private final Path server;
    private final Path installDb;
    private final boolean root;
    private final Path data;
    private final Path run;
    private final Path errorLog;
    private final Path initFile;
    private Process process;

    private MariaDbServer(Path server, Path installDb, boolean root, Path directory) {
        super("MariaDB", directory, "mariadb-test-server-shutdown");
        this.server = server;
        this.installDb = installDb;
        this.root = root;
        this.data = directory.resolve("data");
        this.run = directory.resolve("run");
        this.errorLog = run.resolve("error.log");
        this.initFile = directory.resolve("init.sql");
    }

    /** Creates a new server in a temporary directory and starts it on a free port of 127.0.0.1. */
    public static MariaDbServer start() {
        Path server = MariaDbPrograms.server();
        Path installDb = MariaDbPrograms.installDb();
        MariaDbServer mariaDb;
        try {
            Path directory = Files.createTempDirectory("wheel-timer-mariadb-");
            mariaDb = new MariaDbServer(server, installDb, MariaDbPrograms.isRoot(), directory);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not prepare a directory for MariaDB", e);
        }
        mariaDb.startUp(() -> {
            mariaDb.create();
            mariaDb.launchOnFreePort(
                    PORT_ATTEMPTS, mariaDb.errorLog, mariaDb::launch, "Bind on TCP/IP port", "Address already in use");
        });
        return mariaDb;
    }

    /** The host the server listens on: {@code 127.0.0.1}. */
    public String host() {
        return HOST;
    }

    /** {@value #DEFAULT_DATABASE}. */
    @Override
    public String defaultDatabase() {
        return DEFAULT_DATABASE;
    }

    /** The MariaDB Connector/J URL of {@code database}; at most 64 characters. */
    @Override
    public synchronized String jdbcUrl(String database) {
        return "jdbc:mariadb://" + HOST + ":" + port() + "/"
                + ThrowawayServers.checkDatabaseName(database, DATABASE_NAME_LENGTH);
    }

    /** {@value #USERNAME}. */
    @Override
    public String username() {
        return USERNAME;
    }

    /** A new MariaDB Connector/J data source for {@code database}, one connection per {@code getConnection()}. */
    @Override
    public DataSource dataSource(String database) {
        try {
            MariaDbDataSource dataSource = new MariaDbDataSource(jdbcUrl(database));
            dataSource.setUser(USERNAME);
            return dataSource;
        } catch (SQLException e) {
            throw new IllegalStateException("Could not make a data source for " + jdbcUrl(database) + ": " + e, e);
        }
    }

    /** Shuts the server down cleanly, as {@link ThrowawayServer#stop()} says. */
    @Override
    public synchronized void stop() {
        checkNotClosed("stop");
        if (process == null) {
            throw new IllegalStateException("The MariaDB server on port " + port() + " is already stopped");
        }
        Process stopping = process;
        process = null;
        stopping.destroy(); // SIGTERM: mariadbd shuts down cleanly
        if (!ThrowawayServers.waitFor(stopping, STOP_TIMEOUT)) {
            stopping.destroyForcibly();
            ThrowawayServers.waitFor(stopping, STOP_TIMEOUT);
            throw new IllegalStateException("The MariaDB server on port " + port() + " did not shut down within "
                    + STOP_TIMEOUT + " of SIGTERM and was killed\n--- server log " + errorLog + " ---\n"
                    + ThrowawayServers.readLog(errorLog, 0));
        }
    }

    @Override
    public synchronized void startAgain() {
        checkNotClosed("startAgain");
        if (process != null) {
            throw new IllegalStateException("The MariaDB server on port " + port() + " is already running");
        }
        launch();
    }

    @Override
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** The directory holding the server's data, its log and its socket. */
    Path directory() {
        return home();
    }

    @Override
    public synchronized String toString() {
        return "MariaDbServer[" + HOST + ":" + port() + ", " + (process != null ? "running" : "stopped") + ", " + home()
                + "]";
    }

    /** The system tables, and the init file that gives the test user its rights at every start. */
    private void create() {
        try {
            Files.createDirectory(run);
            // Run at each start, when the grant tables are loaded (they are not while the system tables are
            // made): the user exists from the first connection on.
            Files.writeString(
                    initFile,
                    "CREATE USER IF NOT EXISTS '" + USERNAME + "'@'" + HOST + "';\n"
                            + "GRANT ALL PRIVILEGES ON *.* TO '" + USERNAME + "'@'" + HOST + "' WITH GRANT OPTION;\n");
        } catch (IOException e) {
            throw new UncheckedIOException("Could not prepare the MariaDB directories under " + home(), e);
        }
        List<String> command = new ArrayList<>(List.of(
                installDb.toString(),
                "--no-defaults",
                "--datadir=" + data,
                "--auth-root-authentication-method=socket",
                "--skip-test-db",
                "--skip-name-resolve"));
        if (root) {
            command.add("--user=root");
        }
        command.addAll(engineOptions());
        Path output = home().resolve("mariadb-install-db.out");
        ThrowawayServers.runToCompletion(
                "MariaDB test server",
                "mariadb-install-db",
                ThrowawayServers.processBuilder(command, home(), output),
                output,
                COMMAND_TIMEOUT,
                () -> "");
    }

    /** Options that both the system tables' creation and the server take, so that the server need not redo them. */
    private static List<String> engineOptions() {
        return List.of(
                "--innodb-log-file-size=16M",
                "--innodb-buffer-pool-size=64M",
                "--innodb-flush-log-at-trx-commit=0",
                "--innodb-doublewrite=0");
    }

    /** Starts mariadbd on {@link #port()} and waits until it accepts the test user's connections. */
    private void launch() {
        List<String> command = new ArrayList<>(List.of(
                server.toString(),
                "--no-defaults",
                "--datadir=" + data,
                "--socket=" + run.resolve("mariadbd.sock"),
                "--pid-file=" + run.resolve("mariadbd.pid"),
                "--port=" + port(),
                "--bind-address=" + HOST,
                "--skip-name-resolve",
                "--log-error=" + errorLog,
                "--init-file=" + initFile,
                "--max-connections=" + MAX_CONNECTIONS,
                "--character-set-server=latin1",
                "--collation-server=latin1_swedish_ci"));
        if (root) {
            command.add("--user=root");
        }
        command.addAll(engineOptions());
        long logStart = ThrowawayServers.logSize(errorLog);
        Process started = ThrowawayServers.start("MariaDB test server", command, home(), run.resolve("mariadbd.out"));
        ThrowawayServers.Awaited awaited = ThrowawayServers.awaitConnection(
                started, jdbcUrl(DEFAULT_DATABASE) + "?connectTimeout=1000", USERNAME, START_TIMEOUT);
        if (awaited.accepting()) {
            process = started;
            return;
        }
        boolean exited = !started.isAlive();
        started.destroyForcibly();
        ThrowawayServers.waitFor(started, STOP_TIMEOUT);
        throw new IllegalStateException("MariaDB test server: mariadbd "
                + (exited
                        ? "exited with code " + started.exitValue()
                        : "did not accept connections within " + START_TIMEOUT)
                + " (last connection error: " + awaited.lastError() + ")\n  command: " + String.join(" ", command)
                + "\n--- server log " + errorLog + ", from this start on ---\n"
                + ThrowawayServers.readLog(errorLog, logStart));
    }

    /** Kills mariadbd at once, if it runs. */
    @Override
    protected void kill() {
        if (process != null) {
            process.destroyForcibly();
            ThrowawayServers.waitFor(process, STOP_TIMEOUT);
            process = null;
        }
    }
}
