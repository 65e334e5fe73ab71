package io.wheeltimer.benchmarks.experiments;

import io.wheeltimer.testsupport.mariadb.MariaDbServer;
import io.wheeltimer.testsupport.postgres.EmbeddedPostgresServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;

/**
 * The databases the durable benchmark runs on, each a throwaway server of {@code wheel-timer-test-support}
 * started for one measurement: its server, and each contender's table on it.
 *
 * <ul>
 *   <li>{@link #POSTGRESQL}: {@link EmbeddedPostgresServer} (the same binaries and settings every time,
 *       {@code fsync} off);
 *   <li>{@link #MARIADB}: {@link MariaDbServer}, the machine's {@code mariadbd} (Debian's
 *       {@code mariadb-server}), InnoDB with its log flushed about once a second rather than at each commit.
 * </ul>
 */
public enum DurableDatabase {
    POSTGRESQL("postgresql", "PostgreSQL"),
    MARIADB("mariadb", "MariaDB");

    /**
     * A running server: {@code creator} makes a fresh, empty database of the name it is given and
     * returns its JDBC URL; {@code username} reaches it; {@code closer} stops the server.
     */
    record Server(UnaryOperator<String> creator, String username, Runnable closer) implements AutoCloseable {

        /** Creates an empty database named {@code name} and returns its JDBC URL. */
        String createDatabase(String name) {
            return creator.apply(name);
        }

        @Override
        public void close() {
            closer.run();
        }
    }

    private final String id;
    private final String label;

    DurableDatabase(String id, String label) {
        this.id = id;
        this.label = label;
    }

    /** Its name in the results and in {@code DATABASES}: {@code postgresql}, {@code mariadb}. */
    String id() {
        return id;
    }

    public String label() {
        return label;
    }

    /** The database of {@code id} ({@code postgresql}, {@code mariadb}; any case). */
    public static DurableDatabase of(String id) {
        for (DurableDatabase database : values()) {
            if (database.id.equals(id.toLowerCase(Locale.ROOT))) {
                return database;
            }
        }
        throw new IllegalArgumentException("unknown database " + id + ": postgresql or mariadb");
    }

    /** Starts a new throwaway server of this kind. */
    Server start() {
        if (this == POSTGRESQL) {
            EmbeddedPostgresServer server = EmbeddedPostgresServer.start();
            return new Server(server::createDatabase, server.username(), server::close);
        }
        MariaDbServer server = MariaDbServer.start();
        return new Server(server::createDatabase, server.username(), server::close);
    }

    /**
     * The statements that create {@code contender}'s table here: the durable timer's shipped
     * {@code schema-<database>.sql}, or db-scheduler's table as its documentation gives it for this database.
     */
    List<String> tableStatements(DurableContender contender) throws IOException {
        String script;
        if (contender == DurableContender.DURABLE) {
            String resource = "io/wheeltimer/jdbc/schema-" + id + ".sql";
            try (InputStream in = DurableDatabase.class.getClassLoader().getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException(resource + " is not on the class path");
                }
                script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
        } else {
            script = this == POSTGRESQL ? DB_SCHEDULER_POSTGRESQL : DB_SCHEDULER_MARIADB;
        }
        StringBuilder withoutComments = new StringBuilder();
        for (String line : script.split("\n")) {
            if (!line.strip().startsWith("--")) {
                withoutComments.append(line).append('\n');
            }
        }
        List<String> statements = new ArrayList<>();
        for (String statement : withoutComments.toString().split(";")) {
            if (!statement.isBlank()) {
                statements.add(statement);
            }
        }
        return statements;
    }

    /**
     * db-scheduler's table on PostgreSQL, with the columns and indexes its documentation gives for
     * PostgreSQL (the {@code priority} column and index included, though priorities stay off).
     */
    private static final String DB_SCHEDULER_POSTGRESQL = """
            CREATE TABLE scheduled_tasks (
                task_name TEXT NOT NULL,
                task_instance TEXT NOT NULL,
                task_data BYTEA,
                execution_time TIMESTAMP WITH TIME ZONE NOT NULL,
                picked BOOLEAN NOT NULL,
                picked_by TEXT,
                last_success TIMESTAMP WITH TIME ZONE,
                last_failure TIMESTAMP WITH TIME ZONE,
                consecutive_failures INT,
                last_heartbeat TIMESTAMP WITH TIME ZONE,
                version BIGINT NOT NULL,
                priority SMALLINT,
                PRIMARY KEY (task_name, task_instance)
            );
            CREATE INDEX execution_time_idx ON scheduled_tasks (execution_time);
            CREATE INDEX last_heartbeat_idx ON scheduled_tasks (last_heartbeat);
            CREATE INDEX priority_execution_time_idx ON scheduled_tasks (priority DESC, execution_time ASC);
            """;

    /**
     * db-scheduler's table on MariaDB, as its documentation gives it for MariaDB and MySQL (microsecond
     * timestamps, the {@code priority} column and index included, though priorities stay off). It fixes no
     * character set, so it takes the server's.
     */
    private static final String DB_SCHEDULER_MARIADB = """
            CREATE TABLE scheduled_tasks (
                task_name VARCHAR(100) NOT NULL,
                task_instance VARCHAR(100) NOT NULL,
                task_data BLOB,
                execution_time TIMESTAMP(6) NOT NULL,
                picked BOOLEAN NOT NULL,
                picked_by VARCHAR(50),
                last_success TIMESTAMP(6) NULL,
                last_failure TIMESTAMP(6) NULL,
                consecutive_failures INT,
                last_heartbeat TIMESTAMP(6) NULL,
                version BIGINT NOT NULL,
                priority SMALLINT,
                PRIMARY KEY (task_name, task_instance),
                INDEX execution_time_idx (execution_time),
                INDEX last_heartbeat_idx (last_heartbeat),
                INDEX priority_execution_time_idx (priority DESC, execution_time ASC)
            );
            """;
}
