package io.wheeltimer.jdbc.internal.table;

import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.FailedTimeout;
import java.time.Clock;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The one door to the timeouts table and its instances table: every statement the module runs on
 * them is asked of this class, which runs plain SQL itself, hands what differs per database to its
 * {@link Dialect}, the reads of an application or an operator to {@link TimeoutQueries} and those of
 * a page that shows the table to {@link OverviewQueries}. Every method runs one statement (or one claim) through a
 * {@link JdbcTemplate}, so it joins the Spring-managed transaction of the calling thread, if any.
 *
 * <p>Rows: {@code deadline} (as scheduled), {@code due_at} (when it runs next), {@code lease_until}
 * and {@code failed_at} are epoch milliseconds. {@code version} grows at every schedule and retry of
 * a row, and every write made for an armed timeout names the version and holder it expects, so a
 * run of an older version, or of a row another instance took over, changes nothing.
 */
public final class TimeoutTable {

    private final Dialect dialect;
    private final JdbcTemplate calls;
    private final JdbcTemplate bounded;
    private final List<String> tasks;
    private final Clock clock;
    private final AtomicLong lastVersion = new AtomicLong();
    private final TimeoutQueries queries;
    private final OverviewQueries overview;

    private final String selectPending;
    private final String retry;
    private final String giveUp;
    private final String release;
    private final String countFailed;
    private final String deleteLease;
    private final String deleteExpiredLeases;

    TimeoutTable(Dialect dialect, Set<String> tasks, Clock clock) {
        this.dialect = dialect;
        this.calls = dialect.calls;
        this.bounded = dialect.bounded;
        this.tasks = List.copyOf(tasks);
        this.clock = clock;
        this.queries = new TimeoutQueries(dialect);
        this.overview = new OverviewQueries(dialect);
        String table = dialect.table;
        String row = " WHERE task = ? AND timeout_key = ?";
        String held = row + " AND version = ? AND holder = ? AND failed_at IS NULL";
        this.selectPending = "SELECT " + Rows.columns(table) + " FROM " + table + row + " AND failed_at IS NULL";
        this.retry =
                "UPDATE " + table + " SET attempts = ?, last_error = ?, version = ?, due_at = ?, holder = ?" + held;
        this.giveUp = "UPDATE " + table
                + " SET attempts = ?, last_error = ?, failed_at = ?, due_at = NULL, holder = NULL" + held;
        this.release = "UPDATE " + table + " SET holder = NULL" + held;
        this.countFailed = "SELECT COUNT(*) FROM " + table + " WHERE failed_at IS NOT NULL";
        this.deleteLease = "DELETE FROM " + dialect.instances + " WHERE instance_id = ?";
        this.deleteExpiredLeases = "DELETE FROM " + dialect.instances + " WHERE lease_until < ?";
    }

    /**
     * The table {@code table} (and its instances table) in the dialect of the database {@code calls}
     * reaches, asked of the driver once, for an instance that claims the timeouts of {@code tasks}.
     * {@code calls} runs what an application calls, {@code bounded} the timer's own statements (with a
     * query timeout); both join the transaction of the calling thread. {@code clock} makes versions.
     *
     * @throws IllegalStateException if the database is not one of those supported
     */
    public static TimeoutTable open(
            JdbcTemplate calls, JdbcTemplate bounded, String table, Set<String> tasks, Clock clock) {
        return new TimeoutTable(Dialects.detect(calls, bounded, table), tasks, clock);
    }

    /**
     * The database's time in epoch milliseconds as an SQL expression, truncated to the millisecond:
     * what the timer's statements compare deadlines and leases with when the database's clock judges.
     */
    public String databaseMillisExpression() {
        return dialect.nowMillis();
    }

    /** The statements of the database's life lock; null where it has none. */
    public LifeLockStatements lifeLock() {
        return dialect.lifeLock();
    }

    /** This instance keeps no life lock from now on: {@link Dialect#keepNoLifeLock}. */
    public void keepNoLifeLock() {
        dialect.keepNoLifeLock();
    }

    /** The tasks this instance claims. */
    public List<String> tasks() {
        return tasks;
    }

    /**
     * What is wrong with the tables, if anything: the first that lacks a column this version reads
     * or writes (naming the table, what is missing and the script that adds it); empty when none.
     *
     * @throws org.springframework.dao.DataAccessResourceFailureException if the database cannot be reached
     */
    public Optional<ShapeProblem> checkShape() {
        return TableShape.check(dialect);
    }

    /**
     * A version for a new write: larger than every one this instance made before, and than
     * {@code after}. Taken from the clock (microseconds) so that a row deleted and inserted again
     * starts above its earlier versions; the table makes each row's versions grow in any case.
     */
    public long nextVersion(long after) {
        long fromClock = clock.millis() * 1000;
        return lastVersion.accumulateAndGet(Math.max(after, fromClock - 1), (last, floor) -> Math.max(last, floor) + 1);
    }

    /**
     * Inserts the row of (task, key), or replaces the pending or given-up one: pending again, no
     * attempts, due at its deadline. Returns the version written.
     */
    public long upsert(String task, String key, long deadline, String holder, String data, String traceContext) {
        return dialect.upsertTimeout(new TimeoutWrite(task, key, deadline, holder, nextVersion(0), data, traceContext));
    }

    /** Deletes the pending row of (task, key); its version, or empty when none was pending. */
    public Optional<Long> deletePending(String task, String key) {
        return dialect.deletePending(task, key);
    }

    /** The pending row of (task, key), if any. */
    public Optional<PendingRow> pending(String task, String key) {
        return calls.query(selectPending, Rows.PENDING, task, key).stream().findFirst();
    }

    /**
     * Deletes the row that {@code holder} runs, if it is still that version, still held by it and due
     * by the time that judges ({@code judgedNowMillis}; null for the database's own time), returning
     * its data and trace context. Locks the row until the transaction ends, so a concurrent cancel
     * waits and then finds nothing.
     */
    public Optional<StoredData> deleteForFiring(
            String task, String key, long version, String holder, Long judgedNowMillis) {
        return dialect.deleteForFiring(task, key, version, holder, judgedNowMillis);
    }

    /** The database's time, in epoch milliseconds, read in a statement of its own. */
    public long databaseMillis() {
        return dialect.databaseMillis();
    }

    /**
     * Lets go of the rows {@code instance} holds of tasks it has no handler for (an earlier life of
     * this instance id handled them), so that an instance that handles them claims them; how many.
     */
    public int releaseUnhandled(String instance) {
        String table = dialect.table;
        if (tasks.isEmpty()) {
            return bounded.update("UPDATE " + table + " SET holder = NULL WHERE holder = ?", instance);
        }
        Object[] args = new Object[tasks.size() + 1];
        args[0] = instance;
        for (int i = 0; i < tasks.size(); i++) {
            args[i + 1] = tasks.get(i);
        }
        return bounded.update(
                "UPDATE " + table + " SET holder = NULL WHERE holder = ? AND task NOT IN ("
                        + String.join(", ", Collections.nCopies(tasks.size(), "?")) + ")",
                args);
    }

    /**
     * Writes every one of {@code writes} as {@link #upsert} writes one, in one JDBC batch, in the
     * caller's transaction; returns nothing (the versions written are read back where they are needed).
     */
    public void upsertAll(List<TimeoutWrite> writes) {
        dialect.upsertTimeouts(writes);
    }

    /**
     * Locks the pending rows of {@code task} among {@code keys} (at most a few hundred) until the
     * transaction ends, waiting for those a run holds; their versions by key.
     */
    public Map<String, Long> lockPending(String task, List<String> keys) {
        return dialect.lockPending(task, keys);
    }

    /** Deletes the pending rows of {@code task}, each at the version given (locked by the caller), in one batch. */
    public int deletePending(String task, List<String> keys, List<Long> versions) {
        return queries.deletePending(task, keys, versions);
    }

    /** The pending timeout of (task, key), with its data, if any. */
    public Optional<DurableTimeout> findPending(String task, String key) {
        return queries.findPending(task, key);
    }

    /** The given-up timeout of (task, key), if any. */
    public Optional<FailedTimeout> findFailed(String task, String key) {
        return queries.findFailed(task, key);
    }

    /** At most {@code limit} pending timeouts of {@code task} (null: every task), soonest first. */
    public List<DurableTimeout> pendingPage(String task, int limit) {
        return queries.pending(task, limit);
    }

    /** At most {@code limit} given-up timeouts of {@code task} (null: every task), latest failure first. */
    public List<FailedTimeout> failedPage(String task, int limit) {
        return queries.failed(task, limit);
    }

    /**
     * Makes the given-up row of (task, key) pending again: due at {@code dueAt}, held by
     * {@code holder} (or nobody), no attempts, a version above {@code version} and the row's. Returns
     * the version written and the deadline, or empty when no given-up row was there. Two statements:
     * run it in a transaction.
     */
    public Optional<RetriedRow> retryFailed(String task, String key, long dueAt, String holder, long version) {
        return queries.retry(task, key, dueAt, holder, version);
    }

    /** Deletes the given-up row of (task, key); whether there was one. */
    public boolean discardFailed(String task, String key) {
        return queries.discard(task, key);
    }

    /**
     * Records a failed run of the row {@code holder} holds at {@code version}: a new version due at
     * {@code dueAt}, held by {@code newHolder} (this instance, or nobody when it is due beyond the
     * lookahead). The deadline stays as scheduled.
     */
    public boolean retry(
            String task,
            String key,
            long version,
            String holder,
            int attempts,
            String error,
            long newVersion,
            long dueAt,
            String newHolder) {
        return bounded.update(retry, attempts, error, newVersion, dueAt, newHolder, task, key, version, holder) == 1;
    }

    /** Marks the row {@code holder} holds at {@code version} given up, with its last error; held by nobody. */
    public boolean giveUp(
            String task, String key, long version, String holder, int attempts, String error, long failedAt) {
        return bounded.update(giveUp, attempts, error, failedAt, task, key, version, holder) == 1;
    }

    /** Lets go of the rows {@code holder} holds at these versions (refused here), for any instance to claim. */
    public void release(List<HeldVersion> rows, String holder) {
        bounded.batchUpdate(
                release,
                rows.stream()
                        .map(r -> new Object[] {r.task(), r.key(), r.version(), holder})
                        .toList());
    }

    /** The pending timeouts of each task that is not one of this instance's, by task. */
    public Map<String, Long> countUnhandled() {
        return queries.countPending(task -> !tasks.contains(task));
    }

    public long countFailed() {
        Long count = calls.queryForObject(countFailed, Long.class);
        return count == null ? 0 : count;
    }

    /** Renews the lease of {@code instance} (inserting its row the first time). */
    public void renewLease(String instance, long leaseUntil) {
        dialect.upsertLease(instance, leaseUntil);
    }

    /** Renews the lease of {@code instance} by the database's clock; returns the database's time. */
    public long renewLeaseByDatabaseTime(String instance, long leaseMillis) {
        return dialect.renewLeaseByDatabaseTime(instance, leaseMillis);
    }

    /**
     * Takes for {@code instance} at most {@code limit} timeouts of its tasks due before
     * {@code dueBefore}: unheld, or held by no instance whose lease runs past {@code now}, or its own
     * that were due before {@code healBefore}; returns them, and whether it found as many as
     * {@code limit}.
     */
    public Claim claim(String instance, long dueBefore, long now, long healBefore, int limit) {
        return tasks.isEmpty() || limit <= 0
                ? Claim.NONE
                : dialect.claim(instance, dueBefore, now, healBefore, tasks, limit);
    }

    /** Lets go of every timeout {@code instance} holds but those running, so that any instance may claim them. */
    public int releaseAll(String instance) {
        return dialect.releaseAll(instance);
    }

    public void deleteLease(String instance) {
        bounded.update(deleteLease, instance);
    }

    /** Deletes the lease rows that ran out before {@code before}: instances that are gone. */
    public int deleteExpiredLeases(long before) {
        return bounded.update(deleteExpiredLeases, before);
    }

    /** The table's name, as the timer was built with it. */
    public String name() {
        return dialect.table;
    }

    /**
     * The tasks that have rows in the table, in name order, at most {@code taskLimit}, each with its
     * pending and given-up rows counted up to {@code countLimit}. One statement.
     */
    public List<TaskCountRow> taskCounts(int countLimit, int taskLimit) {
        return overview.taskCounts(countLimit, taskLimit);
    }

    /**
     * How many pending rows of each of {@code tasks} (at least one) are due in each of the
     * {@code minutes} minutes from {@code fromMillis} on; a minute with none is left out. One statement.
     */
    public List<DueMinuteRow> dueByMinute(Collection<String> tasks, long fromMillis, int minutes) {
        return overview.dueByMinute(tasks, fromMillis, minutes);
    }

    /** The lease rows, in id order, at most {@code limit}. One statement. */
    public List<InstanceRow> instances(int limit) {
        return overview.instances(limit);
    }

    /** The row of (task, key), pending or given up, if any. One statement. */
    public Optional<WholeRow> lookup(String task, String key) {
        return overview.lookup(task, key);
    }

    /** A keyset page of {@code task}'s pending or given-up rows: {@link OverviewQueries#page}. One statement. */
    public List<WholeRow> page(boolean pending, boolean backward, String task, long atMillis, String key, int limit) {
        return overview.page(pending, backward, task, atMillis, key, limit);
    }
}
