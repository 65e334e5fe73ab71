package io.wheeltimer.jdbc;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;

/**
 * The statements on the timeouts table and its instances table: plain SQL here, what differs per
 * database in the {@link Dialect}. Every method runs one statement (or one claim) through a
 * {@link JdbcTemplate}, so it joins the Spring-managed transaction of the calling thread, if any.
 *
 * <p>Rows: {@code deadline} (as scheduled), {@code due_at} (when it runs next), {@code lease_until}
 * and {@code failed_at} are epoch milliseconds. {@code version} grows at every schedule and retry of
 * a row, and every write made for an armed timeout names the version and holder it expects, so a
 * run of an older version, or of a row another instance took over, changes nothing.
 */
final class TimeoutTable {

    /** A pending row as this instance reads or claims it. */
    record Row(String task, String key, long deadline, long dueAt, long version, int attempts, String holder) {}

    /** A row to write: a timeout scheduled, whole. */
    record Write(
            String task, String key, long deadline, String holder, long version, String data, String traceContext) {}

    /** What is stored with a timeout: its data and trace context, each null when none. */
    record Stored(String data, String traceContext) {}

    static final RowMapper<Stored> STORED = (rs, i) -> new Stored(rs.getString("data"), rs.getString("trace_context"));

    /** The columns {@link #ROW} reads, of the table aliased {@code alias}. */
    static String columns(String alias) {
        String a = alias + ".";
        return a + "task, " + a + "timeout_key, " + a + "deadline, " + a + "due_at, " + a + "version, " + a
                + "attempts, " + a + "holder";
    }

    static final RowMapper<Row> ROW = (rs, i) -> new Row(
            rs.getString("task"),
            rs.getString("timeout_key"),
            rs.getLong("deadline"),
            rs.getLong("due_at"),
            rs.getLong("version"),
            rs.getInt("attempts"),
            rs.getString("holder"));

    private final Dialect dialect;
    private final JdbcTemplate calls;
    private final JdbcTemplate bounded;
    private final List<String> tasks;
    private final Clock clock;
    private final AtomicLong lastVersion = new AtomicLong();
    private final TimeoutQueries queries;

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
        String table = dialect.table;
        String row = " WHERE task = ? AND timeout_key = ?";
        String held = row + " AND version = ? AND holder = ? AND failed_at IS NULL";
        this.selectPending = "SELECT " + columns(table) + " FROM " + table + row + " AND failed_at IS NULL";
        this.retry =
                "UPDATE " + table + " SET attempts = ?, last_error = ?, version = ?, due_at = ?, holder = ?" + held;
        this.giveUp = "UPDATE " + table
                + " SET attempts = ?, last_error = ?, failed_at = ?, due_at = NULL, holder = NULL" + held;
        this.release = "UPDATE " + table + " SET holder = NULL" + held;
        this.countFailed = "SELECT COUNT(*) FROM " + table + " WHERE failed_at IS NOT NULL";
        this.deleteLease = "DELETE FROM " + dialect.instances + " WHERE instance_id = ?";
        this.deleteExpiredLeases = "DELETE FROM " + dialect.instances + " WHERE lease_until < ?";
    }

    /** The statements of the database's life lock; null where it has none. */
    LifeLock.Statements lifeLock() {
        return dialect.lifeLock();
    }

    /** This instance keeps no life lock from now on: {@link Dialect#keepNoLifeLock}. */
    void keepNoLifeLock() {
        dialect.keepNoLifeLock();
    }

    /** The tasks this instance claims. */
    List<String> tasks() {
        return tasks;
    }

    /**
     * Checks that the tables have every column this version reads and writes.
     *
     * @throws DurableTableException naming the table, what is missing and the script that adds it
     * @throws org.springframework.dao.DataAccessResourceFailureException if the database cannot be reached
     */
    void checkShape() {
        String table = dialect.table;
        checkColumns(table, TIMEOUT_COLUMNS);
        checkColumns(dialect.instances, INSTANCE_COLUMNS);
    }

    private void checkColumns(String table, List<String> expected) {
        Set<String> found;
        try {
            found = bounded.query("SELECT * FROM " + table + " WHERE 1 = 0", rs -> {
                Set<String> names = new java.util.HashSet<>();
                java.sql.ResultSetMetaData meta = rs.getMetaData();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    names.add(meta.getColumnLabel(i).toLowerCase(java.util.Locale.ROOT));
                }
                return names;
            });
        } catch (org.springframework.jdbc.BadSqlGrammarException e) {
            throw new DurableTableException(
                    table,
                    List.of(),
                    "does not exist ("
                            + e.getSQLException()
                                    .getMessage()
                                    .lines()
                                    .findFirst()
                                    .orElse("") + ")",
                    "Create it with io/wheeltimer/jdbc/schema-" + dialect.scripts() + ".sql from wheel-timer-jdbc (with"
                            + " Spring Boot: wheel-timer.durable.initialize-schema=always), or with your migrations",
                    e);
        }
        List<String> missing = expected.stream().filter(c -> !found.contains(c)).toList();
        if (missing.size() == expected.size()) {
            throw new DurableTableException(
                    table,
                    missing,
                    "lacks the columns " + missing + ": it is another table of that name",
                    "Name another table (with Spring Boot: wheel-timer.durable.table-name)",
                    null);
        }
        if (!missing.isEmpty()) {
            throw new DurableTableException(
                    table,
                    missing,
                    "lacks the columns " + missing + ": an earlier version made it",
                    "Run io/wheeltimer/jdbc/upgrade-" + dialect.scripts() + ".sql from wheel-timer-jdbc on it, or add"
                            + " it to your migrations",
                    null);
        }
    }

    /** The columns of the timeouts table this version reads and writes. */
    static final List<String> TIMEOUT_COLUMNS = List.of(
            "task",
            "timeout_key",
            "deadline",
            "due_at",
            "holder",
            "version",
            "attempts",
            "last_error",
            "failed_at",
            "data",
            "trace_context");

    /** The columns of the instances table. */
    static final List<String> INSTANCE_COLUMNS = List.of("instance_id", "lease_until", "life_lock");

    /** The instances table of {@code table}: one lease row per live instance. */
    static String instancesTable(String table) {
        return table + "_instances";
    }

    /**
     * A version for a new write: larger than every one this instance made before, and than
     * {@code after}. Taken from the clock (microseconds) so that a row deleted and inserted again
     * starts above its earlier versions; the table makes each row's versions grow in any case.
     */
    long nextVersion(long after) {
        long fromClock = clock.millis() * 1000;
        return lastVersion.accumulateAndGet(Math.max(after, fromClock - 1), (last, floor) -> Math.max(last, floor) + 1);
    }

    /**
     * Inserts the row of (task, key), or replaces the pending or given-up one: pending again, no
     * attempts, due at its deadline. Returns the version written.
     */
    long upsert(String task, String key, long deadline, String holder, String data, String traceContext) {
        return dialect.upsertTimeout(new Write(task, key, deadline, holder, nextVersion(0), data, traceContext));
    }

    /** Deletes the pending row of (task, key); its version, or empty when none was pending. */
    Optional<Long> deletePending(String task, String key) {
        return dialect.deletePending(task, key);
    }

    /** The pending row of (task, key), if any. */
    Optional<Row> pending(String task, String key) {
        return calls.query(selectPending, ROW, task, key).stream().findFirst();
    }

    /**
     * Deletes the row that {@code holder} runs, if it is still that version, still held by it and due
     * by the time that judges ({@code judgedNowMillis}; null for the database's own time), returning
     * its data and trace context. Locks the row until the transaction ends, so a concurrent cancel
     * waits and then finds nothing.
     */
    Optional<Stored> deleteForFiring(String task, String key, long version, String holder, Long judgedNowMillis) {
        return dialect.deleteForFiring(task, key, version, holder, judgedNowMillis);
    }

    /** The database's time, in epoch milliseconds, read in a statement of its own. */
    long databaseMillis() {
        return dialect.databaseMillis();
    }

    /**
     * Lets go of the rows {@code instance} holds of tasks it has no handler for (an earlier life of
     * this instance id handled them), so that an instance that handles them claims them; how many.
     */
    int releaseUnhandled(String instance) {
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
                        + String.join(", ", java.util.Collections.nCopies(tasks.size(), "?")) + ")",
                args);
    }

    /** The dialect of the database, for the statements of the other parts. */
    Dialect dialect() {
        return dialect;
    }

    /** The statements an application or an operator runs on the whole table. */
    TimeoutQueries queries() {
        return queries;
    }

    /**
     * Records a failed run of the row {@code holder} holds at {@code version}: a new version due at
     * {@code dueAt}, held by {@code newHolder} (this instance, or nobody when it is due beyond the
     * lookahead). The deadline stays as scheduled.
     */
    boolean retry(
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
    boolean giveUp(String task, String key, long version, String holder, int attempts, String error, long failedAt) {
        return bounded.update(giveUp, attempts, error, failedAt, task, key, version, holder) == 1;
    }

    /** Lets go of the rows {@code holder} holds at these versions (refused here), for any instance to claim. */
    void release(List<ArmedTimeouts.Entry> entries, String holder) {
        bounded.batchUpdate(
                release,
                entries.stream()
                        .map(e -> new Object[] {e.id.task(), e.id.key(), e.version, holder})
                        .toList());
    }

    /** The pending timeouts of each task that is not one of this instance's, by task. */
    Map<String, Long> countUnhandled() {
        return queries.countPending(task -> !tasks.contains(task));
    }

    long countFailed() {
        Long count = calls.queryForObject(countFailed, Long.class);
        return count == null ? 0 : count;
    }

    /** Renews the lease of {@code instance} (inserting its row the first time). */
    void renewLease(String instance, long leaseUntil) {
        dialect.upsertLease(instance, leaseUntil);
    }

    /** Renews the lease of {@code instance} by the database's clock; returns the database's time. */
    long renewLeaseByDatabaseTime(String instance, long leaseMillis) {
        return dialect.renewLeaseByDatabaseTime(instance, leaseMillis);
    }

    /**
     * Takes for {@code instance} at most {@code limit} timeouts of its tasks due before
     * {@code dueBefore}: unheld, or held by no instance whose lease runs past {@code now}, or its own
     * that were due before {@code healBefore}; returns them.
     */
    List<Row> claim(String instance, long dueBefore, long now, long healBefore, int limit) {
        return tasks.isEmpty() || limit <= 0
                ? List.of()
                : dialect.claim(instance, dueBefore, now, healBefore, tasks, limit);
    }

    /** Lets go of every timeout {@code instance} holds but those running, so that any instance may claim them. */
    int releaseAll(String instance) {
        return dialect.releaseAll(instance);
    }

    void deleteLease(String instance) {
        bounded.update(deleteLease, instance);
    }

    /** Deletes the lease rows that ran out before {@code before}: instances that are gone. */
    int deleteExpiredLeases(long before) {
        return bounded.update(deleteExpiredLeases, before);
    }
}
