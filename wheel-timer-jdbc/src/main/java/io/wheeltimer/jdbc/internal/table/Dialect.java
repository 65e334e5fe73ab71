package io.wheeltimer.jdbc.internal.table;

import java.sql.Types;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.SqlParameterValue;

/**
 * What differs between databases: the statements that plain SQL cannot write the same way
 * everywhere (the timeout upsert that returns its version, and its batch, the lease upsert, the
 * delete that returns the version it removed, the delete of a firing row that returns its data, and
 * the claim). One subclass per database; {@link TimeoutTable} runs
 * everything else. Adding a database is one subclass here, one case in {@link Dialects#of} and its schema
 * and upgrade scripts beside the others.
 *
 * <p>Two templates: {@link #calls} for what an application calls ({@code schedule}, {@code cancel}:
 * they wait for a row lock as long as the caller's transaction allows), and {@link #bounded} for
 * the timer's own statements, each with a query timeout so that no poll or stop hangs. Both join
 * the transaction of the calling thread.
 */
abstract class Dialect {

    final JdbcTemplate calls;
    final JdbcTemplate bounded;
    final String table;
    final String instances;

    /** Cleared, once, by {@link #keepNoLifeLock}: set by the poll thread or the start, read by the polls. */
    private volatile boolean keepsLifeLock = true;

    Dialect(JdbcTemplate calls, JdbcTemplate bounded, String table) {
        this.calls = calls;
        this.bounded = bounded;
        this.table = table;
        this.instances = Rows.instancesTable(table);
    }

    /** The name of its scripts: {@code schema-NAME.sql} and {@code upgrade-NAME.sql}. */
    abstract String scripts();

    /**
     * Inserts the row of (task, key), or replaces the pending or given-up one whole: pending again,
     * no attempts, no error. Its version becomes {@code version}, or one more than the row's, if that
     * is larger: a row's versions only grow, in the order its writes commit. Returns the version
     * written.
     */
    abstract long upsertTimeout(TimeoutWrite write);

    /**
     * As {@link #upsertTimeout} for each of {@code writes}, in one JDBC batch, in the caller's
     * transaction; returns nothing (the versions written are read back where they are needed).
     */
    abstract void upsertTimeouts(List<TimeoutWrite> writes);

    /**
     * Deletes the row that {@code holder} runs, if it is still that version, still held by it and due
     * by the time that judges ({@code judgedNowMillis}, or the database's own time where it is null),
     * returning what was stored with it; empty when it was not. Locks the row until the transaction
     * ends, so a concurrent cancel waits and then finds nothing.
     */
    abstract Optional<StoredData> deleteForFiring(
            String task, String key, long version, String holder, Long judgedNowMillis);

    /**
     * Locks the pending rows of {@code task} among {@code keys} (at most a few hundred) until the
     * transaction ends, waiting for those a run holds; their versions by key.
     */
    Map<String, Long> lockPending(String task, List<String> keys) {
        String sql = "SELECT timeout_key, version FROM " + table + " WHERE task = ? AND timeout_key IN ("
                + String.join(", ", Collections.nCopies(keys.size(), "?")) + ") AND failed_at IS NULL FOR UPDATE";
        List<Object> args = new ArrayList<>(keys.size() + 1);
        args.add(task);
        args.addAll(keys);
        Map<String, Long> versions = new HashMap<>();
        calls.query(
                sql,
                rs -> {
                    versions.put(rs.getString(1), rs.getLong(2));
                },
                args.toArray());
        return versions;
    }

    /**
     * The condition of a row {@code holder} holds at a version, pending: parameters task, key, version,
     * holder. Only the primary key's columns are compared bare; the holder is read through an
     * expression that no index serves, so that every database reaches the one row by its primary key,
     * with statistics or without (a table just created, or grown faster than its statistics, would
     * otherwise have the index by holder chosen, and every run would scan the rows its instance holds).
     */
    static final String HELD =
            " WHERE task = ? AND timeout_key = ? AND version = ? AND COALESCE(holder, '') = ? AND failed_at IS NULL";

    /**
     * The database's time in epoch milliseconds, an SQL expression: truncated to the millisecond as
     * Java's clock truncates (a reading rounded up would put the database's clock up to half a
     * millisecond ahead), and independent of the session's time zone (a local time converted back is
     * ambiguous in the repeated hour of a daylight-saving zone). A constant of each dialect.
     */
    abstract String nowMillis();

    /** A parameter of SQL type BIGINT, as this database writes it. */
    String bigintParameter() {
        return "CAST(? AS BIGINT)";
    }

    /**
     * The condition of a row {@code holder} holds at a version, pending and due: {@link #HELD} and a
     * due time no later than the time that judges, a parameter after HELD's, or where it is null the
     * database's own time. A run starts only once this holds, so no error of the offset this instance
     * measured to the database's clock can start one early. The due time too is read through an
     * expression that no index serves, and that does not tell a database that it is not null: the index
     * by task and due time (on PostgreSQL only of the rows with a due time) then cannot serve the
     * statement, and on a table without statistics take the primary key's place.
     */
    final String heldAndDue() {
        return HELD + " AND COALESCE(due_at, " + Long.MAX_VALUE + ") <= COALESCE(" + bigintParameter() + ", "
                + nowMillis() + ")";
    }

    /** The arguments of {@link #heldAndDue}: the time that judges passed as a BIGINT, null for the database's. */
    static Object[] heldAndDueArguments(String task, String key, long version, String holder, Long judgedNowMillis) {
        return new Object[] {task, key, version, holder, new SqlParameterValue(Types.BIGINT, judgedNowMillis)};
    }

    /**
     * Reads the database's time, in epoch milliseconds, in a statement of its own.
     *
     * @throws org.springframework.dao.DataAccessException if the database cannot be reached
     */
    long databaseMillis() {
        Long millis = bounded.queryForObject("SELECT " + nowMillis(), Long.class);
        return millis == null ? 0 : millis;
    }

    /**
     * Runs {@code sql}, whose condition is {@link #heldAndDue}, with its arguments, and reads the data
     * and trace context of the one row it returns, if any.
     */
    final Optional<StoredData> heldAndDueData(
            String sql, String task, String key, long version, String holder, Long judgedNowMillis) {
        return bounded
                .query(sql, Rows.STORED_DATA, heldAndDueArguments(task, key, version, holder, judgedNowMillis))
                .stream()
                .findFirst();
    }

    /** Deletes the pending row of (task, key); its version, or empty when none was pending. */
    abstract Optional<Long> deletePending(String task, String key);

    /**
     * Lets go of every row {@code instance} holds, but those a run has locked (a handler still
     * running): the release never waits for a handler; a row it skips is deleted by its run's
     * commit, or, if that run fails, taken over when the lease runs out.
     */
    abstract int releaseAll(String instance);

    /** Writes the lease of {@code instance} to run until {@code leaseUntil}, inserting its row the first time. */
    abstract void upsertLease(String instance, long leaseUntil);

    /**
     * Writes the lease of {@code instance} to run until the database's time plus {@code leaseMillis},
     * inserting its row the first time, and returns the database's time (epoch milliseconds, truncated
     * as Java's clock truncates: a reading rounded up would put the database's clock up to half a
     * millisecond ahead, and deadlines would fire that much early): one
     * statement that renews the lease and reads the clock that judges it. Where the database has a
     * life lock and the claim does not ask for it ({@link #holderAlive}), the same statement ends
     * the lease of every other instance whose lock is free: it is dead (not where this instance keeps no
     * lock: {@link #keepNoLifeLock}).
     */
    abstract long renewLeaseByDatabaseTime(String instance, long leaseMillis);

    /**
     * Takes for {@code instance} at most {@code limit} pending timeouts of {@code tasks} due before
     * {@code dueBefore}: those held by no instance whose lease runs past {@code now}, and its own
     * that were due before {@code healBefore} (held here but lost from memory). Skips rows that
     * another transaction has locked (a concurrent claim, or a run): two instances never both take a
     * row, and a row running here is never taken again. Returns the rows taken.
     */
    abstract Claim claim(String instance, long dueBefore, long now, long healBefore, List<String> tasks, int limit);

    /**
     * The statements of this database's life lock; null where it has none (H2, which is one
     * instance: its lease alone counts).
     */
    LifeLockStatements lifeLock() {
        return null;
    }

    /**
     * From now on this instance keeps no life lock (a transaction-pooling proxy is in between):
     * its lease renewals write so in its lease row ({@code life_lock} false), so that the others judge
     * it by its lease alone, and it judges the others by their leases alone too, ending none by a lock.
     * For the rest of this timer's life.
     */
    final void keepNoLifeLock() {
        keepsLifeLock = false;
    }

    /** Whether this instance keeps a life lock, where the database has one; see {@link #keepNoLifeLock}. */
    final boolean keepsLifeLock() {
        return keepsLifeLock;
    }

    /**
     * Where the claim asks the database whether the holder of a row is alive beyond its live lease:
     * the rest of the condition on instances row {@code i} (starting with {@code AND}), true while that
     * instance's life lock is held; empty where the lease alone counts, or where the lease
     * renewal looks at the locks instead ({@link #renewLeaseByDatabaseTime}).
     */
    String holderAlive(String i) {
        return "";
    }

    /**
     * An SQL expression, true while the life lock of the instance whose id is the column
     * {@code instanceIdColumn} is held by some session; null where the database has none.
     */
    String lifeLockHeld(String instanceIdColumn) {
        return null;
    }

    /**
     * The condition of a claimable row of alias {@code a}. Parameters, in {@link #claimArguments}'s
     * order: due before, this instance, heal before, lease alive at, the tasks.
     */
    final String claimable(String a, int taskCount) {
        return a + ".due_at <= ? AND " + a + ".failed_at IS NULL AND (" + a + ".holder IS NULL OR (" + a
                + ".holder = ? AND "
                + a + ".due_at <= ?) OR NOT EXISTS (SELECT 1 FROM " + instances + " i WHERE i.instance_id = " + a
                + ".holder AND i.lease_until > ?" + holderAlive("i") + ")) AND " + a + ".task IN ("
                + String.join(", ", Collections.nCopies(taskCount, "?")) + ")";
    }

    /** Sets {@code instance} as the holder of the {@code locked} rows, one batch; returns them. */
    final List<PendingRow> hold(String instance, List<PendingRow> locked) {
        if (!locked.isEmpty()) {
            bounded.batchUpdate(
                    "UPDATE " + table + " SET holder = ? WHERE task = ? AND timeout_key = ?",
                    locked.stream()
                            .map(r -> new Object[] {instance, r.task(), r.key()})
                            .toList());
        }
        return locked;
    }

    /** The parameters of {@link #claimable}, then {@code more}. */
    static Object[] claimArguments(
            long dueBefore, String instance, long healBefore, long now, List<String> tasks, Object... more) {
        List<Object> args = new ArrayList<>(tasks.size() + 4 + more.length);
        args.add(dueBefore);
        args.add(instance);
        args.add(healBefore);
        args.add(now);
        args.addAll(tasks);
        Collections.addAll(args, more);
        return args.toArray();
    }
}
