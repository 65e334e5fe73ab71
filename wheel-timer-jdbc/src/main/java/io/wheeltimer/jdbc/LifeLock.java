package io.wheeltimer.jdbc;

import io.wheeltimer.internal.RepeatLog;
import io.wheeltimer.jdbc.internal.table.LifeLockStatements;
import io.wheeltimer.jdbc.internal.table.TimeoutTable;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.springframework.dao.DataAccessException;
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
 * every transaction: with a pool, each running instance holds one of its connections. Each poll asks
 * the database whether the session it reaches on that connection holds the lock ({@code pg_locks} for
 * {@code pg_backend_pid()}; {@code IS_USED_LOCK(name) = CONNECTION_ID()}): a ping alone would pass
 * through a proxy whose session behind it is gone. A lock found not held (its session ended while this
 * instance lives: a network failure, a restart of the database, the session killed, the lock let go)
 * is reported once, so that the poll rebuilds what this instance holds from the table, and taken again.
 * A lock that another session holds (an earlier life of this instance id whose session the database
 * has not yet ended) is not waited for: this instance runs on, the others judge it by the lock that
 * session holds, and each poll tries again.
 *
 * <p><b>Behind a connection pooler in transaction mode</b> (PgBouncer's {@code pool_mode=transaction})
 * no session lock can be kept: the lock stays on whichever server session ran the statement, and the
 * pooler closes that one when it likes ({@code server_lifetime}) while the connection here still works.
 * Such a proxy shows as a session that changes between two statements on one connection, or as one
 * session reached through two connections at once (a direct connection each has its own); this is
 * looked at whenever the lock's connection is opened, and at every poll. Then this instance says so
 * once at WARN, lets go of any lock it took, takes none again, and renews its lease without ending the
 * others' (see {@link TimeoutTable#keepNoLifeLock}), writing in its lease row that it keeps no lock
 * ({@code life_lock}), so that no instance, one connected directly included, judges it by one: its
 * lease alone tells whether it lives, and a crash of it is taken over when that lease runs out.
 *
 * <p><b>A database that only pretends to have session locks</b> (CockroachDB's advisory-lock functions
 * succeed and lock nothing) fails the start: a lock taken must show as held by its session.
 *
 * <p>Thread safe: the start checks, the poll thread checks, {@code stop()} releases.
 */
final class LifeLock {

    /** How many times the opening of the lock's connection looks for a transaction-pooling proxy. */
    private static final int POOLER_PROBES = 3;

    private static final System.Logger log = TimerLog.LOGGER;

    private final TimerContext context;
    private final DataSource dataSource;
    private final String instanceId;
    private final String tableName;
    private final Duration lease;
    private final int timeoutSeconds;
    private final RepeatLog heldElsewhere;

    // Guarded by this object's monitor.
    private LockConnection connection;
    private boolean held;
    /** The lock was held and its session ended; not yet reported by {@link #check}. */
    private boolean lost;
    /** A transaction-pooling proxy is in between: no lock is kept, for the rest of this timer's life. */
    private boolean leaseAlone;

    private volatile long sessionId = -1;

    /**
     * @param dataSource where the lock's connection comes from: the timer's
     */
    LifeLock(TimerContext context, DataSource dataSource) {
        this.context = context;
        TimerSettings settings = context.settings();
        this.dataSource = dataSource;
        this.instanceId = settings.instanceId();
        this.tableName = settings.tableName();
        this.lease = settings.lease();
        this.timeoutSeconds = (int) settings.statementTimeout().toSeconds();
        this.heldElsewhere =
                new RepeatLog(log, "failures to take the life lock", TimeUnit.MINUTES.toNanos(1), System::nanoTime);
    }

    /**
     * At the start, before the first poll: takes the lock, so that a database whose locks are not what
     * they claim fails the start rather than every poll. A database that cannot be reached does not
     * fail it (the polls report that, and take the lock once they can).
     *
     * @throws IllegalStateException if the database took the lock and does not show it held
     */
    synchronized void checkAtStart() {
        LifeLockStatements statements = context.table().lifeLock();
        if (statements == null || leaseAlone || held) {
            return;
        }
        try {
            take(statements);
        } catch (DataAccessException e) {
            // Reported by the polls, which try again.
        }
    }

    /**
     * On the poll thread, before the lease is renewed: makes sure this instance holds its lock, taking
     * it (again) if it does not. Whether it had held it and lost it since the last check: then the
     * others may have taken what it held. Does nothing where the database has no such lock, behind a
     * transaction-pooling proxy, and once the timer is stopped.
     *
     * @throws DataAccessException if the lock could not be looked at or taken
     *     (the database cannot be reached): the poll fails, and the next one tries again
     * @throws IllegalStateException if the database took the lock and does not show it held
     */
    synchronized boolean check() {
        LifeLockStatements statements = context.table().lifeLock();
        if (statements == null || !context.isRunning()) {
            return false;
        }
        if (connection != null && !leaseAlone) {
            verify(statements);
        }
        if (!held && !leaseAlone) {
            take(statements); // a database that cannot be reached fails the poll, which reports it
        }
        boolean reported = lost;
        lost = false;
        if (reported && !leaseAlone) {
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
        LifeLockStatements statements = context.table().lifeLock();
        if (held && statements != null) {
            try {
                connection.run(statements.release());
            } catch (SQLException | RuntimeException e) {
                // A session that cannot release it must not go back to the pool holding it.
                connection.discard();
            }
        }
        connection.close();
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

    /**
     * Whether a transaction-pooling proxy was found in between, so that this instance keeps no lock and
     * its lease alone counts.
     */
    synchronized boolean isLeaseAlone() {
        return leaseAlone;
    }

    /** Asks whether the session on the lock's connection holds the lock, as at each poll. */
    private void verify(LifeLockStatements statements) {
        LockConnection.Answer answer;
        try {
            answer = connection.ask(statements.verify());
        } catch (SQLException | RuntimeException e) {
            // The connection is gone, and its session with it: a new one takes the lock.
            lost |= held;
            discard();
            return;
        }
        if (!sessionChanged(statements, answer) && held && !answer.yes()) {
            lost = true;
            held = false;
        }
    }

    private void take(LifeLockStatements statements) {
        if (connection == null) {
            connection = LockConnection.open(dataSource, instanceId, timeoutSeconds);
            String pooler = probeForPooler(statements);
            if (pooler != null) {
                throughPooler(statements, pooler);
                return;
            }
        }
        LockConnection.Answer taken;
        try {
            taken = connection.ask(statements.take());
        } catch (SQLException | RuntimeException e) {
            discard();
            throw unreachable("could not take its life lock on table " + tableName, e);
        }
        held = taken.yes();
        if (sessionChanged(statements, taken)) {
            return;
        }
        if (held) {
            checkShown(statements);
            return;
        }
        heldElsewhere.report(
                () -> "Durable timer " + instanceId + ": another database session holds its life lock on table "
                        + tableName + " (an earlier life of this instance id whose session the database has not"
                        + " ended yet, or another live instance with this id, which must not be); it runs on, is"
                        + " taken over only when its lease runs out, and tries again at every poll",
                null);
    }

    /**
     * A lock just taken must show as this session's: a database that says it took one and shows none
     * (CockroachDB) cannot tell the others that this instance lives, nor that it died.
     */
    private void checkShown(LifeLockStatements statements) {
        LockConnection.Answer shown;
        try {
            shown = connection.ask(statements.verify());
        } catch (SQLException | RuntimeException e) {
            discard();
            throw unreachable("could not look at its life lock on table " + tableName, e);
        }
        if (sessionChanged(statements, shown) || shown.yes()) {
            return;
        }
        String database = connection.databaseName();
        discard();
        throw new IllegalStateException("Durable timer " + instanceId + " cannot run on " + database + " (table "
                + tableName + "): it answered that this session took " + statements.kind() + ", and does not show"
                + " it held by the session. The database only pretends to have session locks (CockroachDB's"
                + " advisory-lock functions do), and durable timeouts need them to tell a dead instance from a live"
                + " one. Use PostgreSQL, MariaDB or MySQL, or H2 for one instance.");
    }

    /**
     * Whether {@code answer} came from another session than the connection's: only a proxy between
     * them changes it (then this instance keeps no lock from now on).
     */
    private boolean sessionChanged(LifeLockStatements statements, LockConnection.Answer answer) {
        if (answer.session() == sessionId) {
            return false;
        }
        throughPooler(
                statements,
                "its session changed from " + sessionId + " to " + answer.session()
                        + " between two statements on one connection");
        return true;
    }

    /**
     * Looks, on a newly opened lock connection, for a transaction-pooling proxy: the session of that
     * connection changes between two statements, or another connection opened meanwhile reaches the
     * same session (a pooler hands its idle server sessions out again, the last one released first; a
     * direct connection has a session of its own). What it found, or null. Leaves {@link #sessionId}
     * at the connection's session.
     */
    private String probeForPooler(LifeLockStatements statements) {
        try {
            sessionId = connection.session(statements.session());
            for (int probe = 0; probe < POOLER_PROBES; probe++) {
                long other;
                try (Connection another = dataSource.getConnection()) {
                    other = LockConnection.session(another, statements.session(), timeoutSeconds);
                }
                if (other == sessionId) {
                    return "two of its connections, open at once, reached the same session " + other;
                }
                long again = connection.session(statements.session());
                if (again != sessionId) {
                    return "its session changed from " + sessionId + " to " + again
                            + " between two statements on one connection";
                }
            }
            return null;
        } catch (SQLException | RuntimeException e) {
            discard();
            throw unreachable("could not look at the sessions of its connections", e);
        }
    }

    /**
     * A transaction-pooling proxy is in between: says so once, lets go of the lock (where the proxy
     * lets the statement reach the session that took it; else that session keeps it until the proxy
     * closes it), and from now on takes none and lets the lease renewal end no other instance's lease.
     */
    private void throughPooler(LifeLockStatements statements, String found) {
        leaseAlone = true;
        context.table().keepNoLifeLock();
        lost |= held; // the others may have ended this lease while its lock was gone
        if (held) {
            try {
                connection.run(statements.release());
            } catch (SQLException | RuntimeException e) {
                // The proxy closes that session in its own time, and the lock with it.
            }
        }
        discard();
        log.log(
                System.Logger.Level.WARNING,
                () -> "Durable timer " + instanceId + " on table " + tableName + " reaches the database through a"
                        + " connection pooler in transaction mode (" + found + "; PgBouncer with"
                        + " pool_mode=transaction does this): session locks cannot be kept through it, so this"
                        + " instance takes no life lock, and its lease alone tells the others that it lives. It"
                        + " keeps its timeouts while it runs, but if it crashes they are taken over only when its"
                        + " lease runs out (within " + Durations.format(lease) + " of its last renewal), not"
                        + " within seconds. PostgreSQL's JDBC URL needs prepareThreshold=0 there (a transaction"
                        + " pooler cannot keep the driver's server-side prepared statements). Connect directly or"
                        + " through a pooler in session mode to keep the life lock.");
    }

    private DataAccessResourceFailureException unreachable(String what, Exception e) {
        return new DataAccessResourceFailureException(
                "Durable timer " + instanceId + " " + what + ": " + e.getMessage(), e);
    }

    /** Drops the connection: aborted, so that a pool never hands out a session that may still hold the lock. */
    private void discard() {
        if (connection != null) {
            connection.discard();
        }
        connection = null;
        held = false;
        sessionId = -1;
    }
}
