package io.wheeltimer.testsupport;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * A throwaway database server of a test: it listens on a free port of 127.0.0.1, lives in a temporary
 * directory that {@link #close()} deletes, and can be taken down and brought back with its data to test
 * what a client does while its database is away. What {@code MariaDbServer} and
 * {@code EmbeddedPostgresServer} have in common, so that a test can run against either.
 */
public interface ThrowawayServer extends AutoCloseable {

    /** The TCP port on 127.0.0.1; the same for the server's whole life, across {@link #stop()}. */
    int port();

    /** The database every server starts with, to connect to before any other exists. */
    String defaultDatabase();

    /** The JDBC URL of {@code database} (lower-case letters, digits and {@code _}); it need not exist yet. */
    String jdbcUrl(String database);

    /** The JDBC URL of the {@linkplain #defaultDatabase() default database}. */
    default String jdbcUrl() {
        return jdbcUrl(defaultDatabase());
    }

    /** The user to connect as, with no password. */
    String username();

    /** A new data source for {@code database}, one connection per {@code getConnection()}. */
    DataSource dataSource(String database);

    /** A new data source for the {@linkplain #defaultDatabase() default database}. */
    default DataSource dataSource() {
        return dataSource(defaultDatabase());
    }

    /**
     * Creates an empty database named {@code name} (lower-case letters, digits and {@code _}) with the
     * server's defaults, and returns its JDBC URL.
     */
    default String createDatabase(String name) {
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
     * Shuts the server down (open connections are ended, new ones refused) and keeps its data and port for
     * {@link #startAgain()}; fails if it is not running.
     */
    void stop();

    /**
     * Starts the server after {@link #stop()} on the same port with the same data, and returns once it
     * accepts connections; fails if it is running, or if something else has taken the port meanwhile.
     */
    void startAgain();

    /** Whether the server is running: started and not {@linkplain #stop() stopped} or closed. */
    boolean isRunning();

    /** Kills the server at once and deletes its directory, data included; later calls do nothing. */
    @Override
    void close();
}
