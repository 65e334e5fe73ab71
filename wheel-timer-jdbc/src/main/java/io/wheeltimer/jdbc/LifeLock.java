package io.wheeltimer.jdbc;

import io.wheeltimer.internal.RepeatLog;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.OptionalLong;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessResourceFailureException;

/**
 * This instance's life lock: a session-level lock, named after the table and the instance id, that
 * it holds on a connection of its own for as long as it runs. The database ends a session whose
 * process died ({@code kill -9}, a crash: the connection closes), and its locks with it; so the other
 * instances, which look at the lock of every instance whose lease is live when they poll, see at once
 * that its holder is gone and take over what it held, without waiting for its lease to run out. A
 * session the database cannot see end (a frozen host, a network partition) keeps the lock, and there
 * the lease stays the bound.
 *
 * <p>PostgreSQL: a session advisory lock ({@code pg_try_advisory_lock}), whose two keys are an md5 of
 * the table and instance id; the others read {@code pg_locks}. MariaDB and MySQL: a user lock
 * ({@code GET_LOCK(name, 0)}), named with a SHA-2 of the database, table and instance id; the others
 * ask {@code IS_USED_LOCK}. H2 has none: it is one instance, and the lease alone counts.
 *
 * <p>The connection comes from the timer's {@code DataSource} and is kept, in auto-commit mode, outside
 * every transaction: with a pool, each running instance holds one of its connections. Each poll checks
 * it ({@link Connection#isValid}, a ping and no SQL statement); a session that ended while this
 * instance lives (a network failure, a restart of the database, the session killed) is reported once,
 * so that the poll rebuilds what this instance holds from the table, and the lock is taken again on a
 * new connection. A lock that another session holds (an earlier life of this instance id whose session
 * the database has not yet ended) is not waited for: this instance runs on, the others judge it by the
 * lock that session holds, and each poll tries again.
 *
 * <p>Thread safe: the poll thread checks, {@code stop()} releases.
 */
final class LifeLock {

    /** The statements that take and release the lock, each with the instance id as its one parameter. */
    record Statements(String take, String release) {}

    private static final System.Logger log = System.getLogger(JdbcDurableTimer.class.getName());

    private static final Executor IN_PLACE = Runnable::run;

    private final DataSource dataSource;
    private final Supplier<TimeoutTable> table;
    private final BooleanSupplier running;
    private final String instanceId;
    private final String tableName;
    private final int timeoutSeconds;
    private final RepeatLog heldElsewhere;

    // Guarded by this object's monitor.
    private Connection connection;
    private boolean held;
    /** The lock was held and its session ended; not yet reported by {@link #check}. */
    private boolean lost;

    private volatile long sessionId = -1;

    LifeLock(DataSource dataSource, Supplier<TimeoutTable> table, BooleanSupplier running, TimerSettings settings) {
        this.dataSource = dataSource;
        this.table = table;
        this.running = running;
        this.instanceId = settings.instanceId();
        this.tableName = settings.tableName();
        this.timeoutSeconds = (int) settings.statementTimeout().toSeconds();
        this.heldElsewhere =
                new RepeatLog(log, "failures to take the life lock", TimeUnit.MINUTES.toNanos(1), System::nanoTime);
    }

    /**
     * On the poll thread, before the lease is renewed: makes sure this instance holds its lock, taking
     * it (again) if it does not. Whether it had held it and lost it since the last check: then the
     * others may have taken what it held. Does nothing where the database has no such lock, and once
     * the timer is stopped.
     *
     * @throws org.springframework.dao.DataAccessException if the lock could not be looked at or taken
     *     (the database cannot be reached): the poll fails, and the next one tries again
     */
    synchronized boolean check() {
        Statements statements = table.get().lifeLock();
        if (statements == null || !running.getAsBoolean()) {
            return false;
        }
        if (connection != null && !isAlive(connection)) {
            lost |= held;
            discard();
        }
        if (!held) {
            take(statements); // a database that cannot be reached fails the poll, which reports it
        }
        boolean reported = lost;
        lost = false;
        if (reported) {
            // Once the database answers again: an outage is reported by the polls that failed.
            boolean again = held;
            log.log(
                    System.Logger.Level.INFO,
                    () -> "Durable timer " + instanceId + ": the database session that held its life lock on table "
                            + tableName + " ended while it ran (a network failure, a restart of the database, the"
                            + " session killed), so the other instances may have taken some of its timeouts; "
                            + (again ? "it took the lock again" : "it takes the lock again at its next polls")
                            + " and rebuilds what it holds from the table");
        }
        return reported;
    }

    /** At a stop, once the lease row is gone: releases the lock and gives the connection back. */
    synchronized void release() {
        if (connection == null) {
            return;
        }
        Statements statements = table.get().lifeLock();
        if (held && statements != null) {
            try (PreparedStatement release = connection.prepareStatement(statements.release())) {
                release.setQueryTimeout(timeoutSeconds);
                release.setString(1, instanceId);
                release.execute();
            } catch (SQLException | RuntimeException e) {
                // A session that cannot release it must not go back to the pool holding it.
                abort(connection);
            }
        }
        close(connection);
        connection = null;
        held = false;
        lost = false;
        sessionId = -1;
    }

    /** Whether this instance holds its lock now. */
    synchronized boolean isHeld() {
        return held;
    }

    /** The database's id of the session that holds the lock (PostgreSQL's backend pid, MariaDB's connection id). */
    OptionalLong sessionId() {
        long id = sessionId;
        return id < 0 ? OptionalLong.empty() : OptionalLong.of(id);
    }

    private void take(Statements statements) {
        if (connection == null) {
            connection = open();
        }
        try (PreparedStatement take = connection.prepareStatement(statements.take())) {
            take.setQueryTimeout(timeoutSeconds);
            take.setString(1, instanceId);
            try (ResultSet result = take.executeQuery()) {
                result.next();
                held = result.getBoolean(1);
                sessionId = result.getLong(2);
            }
        } catch (SQLException | RuntimeException e) {
            discard();
            throw new DataAccessResourceFailureException(
                    "Durable timer " + instanceId + " could not take its life lock on table " + tableName + ": "
                            + e.getMessage(),
                    e);
        }
        if (!held) {
            heldElsewhere.report(
                    () -> "Durable timer " + instanceId + ": another database session holds its life lock on table "
                            + tableName + " (an earlier life of this instance id whose session the database has not"
                            + " ended yet, or another live instance with this id, which must not be); it runs on, is"
                            + " taken over only when its lease runs out, and tries again at every poll",
                    null);
        }
    }

    private Connection open() {
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
            return opened;
        } catch (SQLException e) {
            abort(opened);
            close(opened);
            throw new DataAccessResourceFailureException(
                    "Durable timer " + instanceId + " could not prepare the connection of its life lock: "
                            + e.getMessage(),
                    e);
        }
    }

    private boolean isAlive(Connection c) {
        try {
            return c.isValid(timeoutSeconds);
        } catch (SQLException e) {
            return false;
        }
    }

    /** Drops the connection: aborted, so that a pool never hands out a session that may still hold the lock. */
    private void discard() {
        if (connection != null) {
            abort(connection);
            close(connection);
        }
        connection = null;
        held = false;
        sessionId = -1;
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
