package io.wheeltimer.jdbc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.Executor;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * The connection a {@link LifeLock} is kept on: one of the timer's {@code DataSource}, in auto-commit
 * mode, outside every transaction; each statement bounded by the timer's query timeout and, where it
 * takes one, given the instance id as its one parameter. Dropped by aborting it, so that a pool never
 * hands out a session that may still hold the lock. Not thread safe: its {@code LifeLock} guards it.
 */
record LockConnection(Connection connection, String instanceId, int timeoutSeconds) {

    /** What a statement of the lock answered: yes or no, and the id of the session that ran it. */
    record Answer(boolean yes, long session) {}

    private static final Executor IN_PLACE = Runnable::run;

    /**
     * A connection of {@code dataSource} in auto-commit mode, for the lock of {@code instanceId}.
     *
     * @throws DataAccessResourceFailureException if none can be had or prepared
     */
    static LockConnection open(DataSource dataSource, String instanceId, int timeoutSeconds) {
        Connection opened;
        try {
            opened = dataSource.getConnection();
        } catch (SQLException e) {
            throw new DataAccessResourceFailureException(
                    "Durable timer " + instanceId + " could not get a connection for its life lock: " + e.getMessage(),
                    e);
        }
        try {
            opened.setAutoCommit(true); // never a transaction left open on it
            return new LockConnection(opened, instanceId, timeoutSeconds);
        } catch (SQLException e) {
            abort(opened);
            close(opened);
            throw new DataAccessResourceFailureException(
                    "Durable timer " + instanceId + " could not prepare the connection of its life lock: "
                            + e.getMessage(),
                    e);
        }
    }

    /** Runs {@code sql} (take or verify) for this instance's lock. */
    Answer ask(String sql) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setQueryTimeout(timeoutSeconds);
            statement.setString(1, instanceId);
            try (ResultSet result = statement.executeQuery()) {
                result.next();
                return new Answer(result.getBoolean(1), result.getLong(2));
            }
        }
    }

    /** Runs {@code sql} (the release) for this instance's lock. */
    void run(String sql) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setQueryTimeout(timeoutSeconds);
            statement.setString(1, instanceId);
            statement.execute();
        }
    }

    /** The id of the session this connection reaches now, read by {@code sql}. */
    long session(String sql) throws SQLException {
        return session(connection, sql, timeoutSeconds);
    }

    /** The id of the session {@code c} reaches now, read by {@code sql}. */
    static long session(Connection c, String sql, int timeoutSeconds) throws SQLException {
        try (PreparedStatement session = c.prepareStatement(sql)) {
            session.setQueryTimeout(timeoutSeconds);
            try (ResultSet result = session.executeQuery()) {
                result.next();
                return result.getLong(1);
            }
        }
    }

    /** The database's product name and version, for errors. */
    String databaseName() {
        try {
            DatabaseMetaData meta = connection.getMetaData();
            return meta.getDatabaseProductName() + " " + meta.getDatabaseProductVersion();
        } catch (SQLException | RuntimeException e) {
            return "this database";
        }
    }

    /** Aborts the connection (a session that may hold the lock never goes back to the pool), then closes it. */
    void discard() {
        abort(connection);
        close();
    }

    /** Gives the connection back. */
    void close() {
        close(connection);
    }

    private static void abort(Connection c) {
        try {
            c.abort(IN_PLACE);
        } catch (SQLException | RuntimeException e) {
            // Closed already, or a driver without abort: closing is all that is left.
        }
    }

    private static void close(Connection c) {
        try {
            c.close();
        } catch (SQLException | RuntimeException e) {
            // Gone with its session.
        }
    }
}
