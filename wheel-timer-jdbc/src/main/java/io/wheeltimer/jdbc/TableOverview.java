package io.wheeltimer.jdbc;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;

/**
 * What a page that shows the table reads, each call one statement whose cost does not grow with the
 * table: counts stop at a limit, the tasks are found by a loose scan of the primary key, upcoming
 * deadlines are read over an index range of each task, and pages are read by keyset (after or
 * before a position), never by an offset. Reads only: it changes nothing and holds no lock. Each
 * statement joins the transaction of the calling thread, if any.
 *
 * <p>Obtained from {@link JdbcDurableTimer#overview()}; thread safe.
 */
public final class TableOverview {

    /**
     * Pending and given-up timeouts of one task, each counted up to the limit asked for: a count
     * equal to that limit means at least that many.
     */
    public record TaskCounts(String task, long pending, long failed) {}

    /** How many pending timeouts of {@code task} are due in minute {@code minute} (0 is the first) of a window. */
    public record DueInMinute(String task, int minute, long count) {}

    /**
     * An instance with a lease row: when its lease ends (epoch milliseconds, by the clock that wrote
     * it: the database's when it judges), whether its life lock is held ({@code null} where the
     * database has none, as H2), and how many timeouts it holds.
     */
    public record Instance(String instanceId, Instant leaseUntil, Boolean lifeLockHeld, long held) {}

    /**
     * A row as an operator sees it: the timeout (its {@code attempt} the run that comes next while
     * pending, the last run once given up), when it runs next ({@code null} once given up), the
     * instance that holds it ({@code null}: none), and for a given-up one when and why.
     */
    public record Stored(DurableTimeout timeout, Instant dueAt, String holder, Instant failedAt, String lastError) {

        /** Whether it is pending (else it was given up). */
        public boolean isPending() {
            return failedAt == null;
        }

        /** Where a page that continues after (or before) this row starts. */
        public Position position() {
            return new Position(isPending() ? dueAt : failedAt, timeout.key());
        }
    }

    /**
     * A place in a page's order: a pending page's due time or a given-up page's failure time, and
     * the key that breaks ties.
     */
    public record Position(Instant at, String key) {
        public Position {
            Objects.requireNonNull(at, "at must not be null");
            Objects.requireNonNull(key, "key must not be null");
        }
    }

    private static final String COLUMNS =
            "task, timeout_key, deadline, due_at, holder, attempts, data, failed_at," + " last_error";

    private static final RowMapper<Stored> STORED = (rs, i) -> {
        String task = rs.getString("task");
        String key = rs.getString("timeout_key");
        Instant deadline = Instant.ofEpochMilli(rs.getLong("deadline"));
        Long dueAt = rs.getObject("due_at") == null ? null : rs.getLong("due_at");
        Long failedAt = rs.getObject("failed_at") == null ? null : rs.getLong("failed_at");
        int attempts = rs.getInt("attempts");
        boolean pending = failedAt == null;
        DurableTimeout timeout = new DurableTimeout(
                task, key, deadline, rs.getString("data"), pending ? attempts + 1 : Math.max(1, attempts));
        return new Stored(
                timeout,
                dueAt == null ? null : Instant.ofEpochMilli(dueAt),
                rs.getString("holder"),
                failedAt == null ? null : Instant.ofEpochMilli(failedAt),
                rs.getString("last_error"));
    };

    private final JdbcTemplate calls;
    private final Clock clock;
    private final String table;
    private final String counts;
    private final String dueByMinute;
    private final String instances;
    private final String lookup;
    private final String pendingForward;
    private final String pendingBackward;
    private final String failedForward;
    private final String failedBackward;

    TableOverview(Dialect dialect, Clock clock) {
        this.calls = dialect.calls;
        this.clock = clock;
        this.table = dialect.table;
        String t = dialect.table;
        // Each count stops at the limit: where the limit-th row of the task exists (one index
        // probe, reading the limit entries before it), the count is the limit; else the rows are
        // fewer than the limit, and counted. Pending rows are those with a due_at (an index-only
        // read of (task, due_at) where the database has them); given-up ones those with a failed_at.
        this.counts = "WITH RECURSIVE found (task) AS (SELECT MIN(task) FROM " + t
                + " UNION ALL SELECT (SELECT MIN(n.task) FROM " + t + " n WHERE n.task > found.task)"
                + " FROM found WHERE found.task IS NOT NULL)"
                + " SELECT f.task, " + cappedCount(t, "due_at") + " AS pending, " + cappedCount(t, "failed_at")
                + " AS failed FROM found f WHERE f.task IS NOT NULL ORDER BY f.task LIMIT ?";
        // The minute is computed in a derived table so that the grouping names a column, not an
        // expression with a parameter (which PostgreSQL does not match to the selected one).
        this.dueByMinute = "SELECT task, due_minute, COUNT(*) AS n FROM (SELECT task, FLOOR((due_at - ?) / 60000)"
                + " AS due_minute FROM " + t + " WHERE task IN (%s) AND due_at >= ? AND due_at < ?) d"
                + " GROUP BY task, due_minute";
        String lifeLock = dialect.lifeLockHeld("i.instance_id");
        this.instances = "SELECT i.instance_id, i.lease_until, " + (lifeLock == null ? "NULL" : lifeLock)
                + " AS locked, (SELECT COUNT(*) FROM " + t + " h WHERE h.holder = i.instance_id) AS held FROM "
                + dialect.instances + " i ORDER BY i.instance_id LIMIT ?";
        String select = "SELECT " + COLUMNS + " FROM " + t;
        this.lookup = select + " WHERE task = ? AND timeout_key = ?";
        // Keyset pages, written so that each database reads an index range of (task, due_at) or
        // (task, failed_at) from the position on.
        String pending = select + " WHERE task = ? AND due_at IS NOT NULL";
        this.pendingForward =
                pending + " AND due_at >= ? AND (due_at > ? OR timeout_key > ?) ORDER BY due_at, timeout_key LIMIT ?";
        this.pendingBackward = pending
                + " AND due_at <= ? AND (due_at < ? OR timeout_key < ?) ORDER BY due_at DESC, timeout_key DESC LIMIT ?";
        String failed = select + " WHERE task = ? AND failed_at IS NOT NULL";
        this.failedForward = failed
                + " AND failed_at <= ? AND (failed_at < ? OR timeout_key > ?) ORDER BY failed_at DESC, timeout_key"
                + " LIMIT ?";
        this.failedBackward = failed
                + " AND failed_at >= ? AND (failed_at > ? OR timeout_key < ?) ORDER BY failed_at, timeout_key DESC"
                + " LIMIT ?";
    }

    /**
     * How many rows of the task of {@code f.task} have {@code column} set, up to the limit (two
     * parameters: the limit less one, then the limit). A scalar subquery with an offset, not a
     * count over a derived table with a limit: MariaDB lets no derived table name an outer column.
     */
    private static String cappedCount(String t, String column) {
        String rows = " FROM " + t + " q WHERE q.task = f.task AND q." + column + " IS NOT NULL";
        return "CASE WHEN (SELECT q." + column + rows + " ORDER BY q." + column + " LIMIT 1 OFFSET ?) IS NOT NULL"
                + " THEN ? ELSE (SELECT COUNT(*)" + rows + ") END";
    }

    /** The time by the clock that judges deadlines (the database's, when it judges). */
    public Instant now() {
        return clock.instant();
    }

    /** The table the timeouts are kept in. */
    public String tableName() {
        return table;
    }

    /**
     * The tasks that have rows in the table, in name order, at most {@code taskLimit}, each with its
     * pending and given-up timeouts counted up to {@code countLimit}. One statement.
     *
     * @param countLimit 1 to 1,000,000
     * @param taskLimit 1 to 1000
     * @throws IllegalArgumentException if a limit is out of range
     */
    public List<TaskCounts> taskCounts(int countLimit, int taskLimit) {
        checkRange("countLimit", countLimit, 1_000_000);
        checkRange("taskLimit", taskLimit, 1000);
        return calls.query(
                counts,
                (rs, i) -> new TaskCounts(rs.getString("task"), rs.getLong("pending"), rs.getLong("failed")),
                countLimit - 1,
                countLimit,
                countLimit - 1,
                countLimit,
                taskLimit);
    }

    /**
     * How many pending timeouts of each of {@code tasks} are due in each of the {@code minutes}
     * minutes from {@code from} on (a minute with none is left out). One statement, reading the
     * index range of each task over the window; none with no tasks.
     *
     * @param minutes 1 to 1440
     * @throws IllegalArgumentException if {@code minutes} is out of range, or there are more than 1000 tasks
     */
    public List<DueInMinute> dueByMinute(Collection<String> tasks, Instant from, int minutes) {
        checkRange("minutes", minutes, 1440);
        Objects.requireNonNull(from, "from must not be null");
        if (tasks.isEmpty()) {
            return List.of();
        }
        checkRange("the number of tasks", tasks.size(), 1000);
        long fromMillis = from.toEpochMilli();
        List<Object> args = new ArrayList<>();
        args.add(fromMillis);
        args.addAll(tasks);
        args.add(fromMillis);
        args.add(fromMillis + minutes * 60_000L);
        String sql = dueByMinute.formatted(String.join(", ", Collections.nCopies(tasks.size(), "?")));
        return calls.query(
                sql,
                (rs, i) -> new DueInMinute(rs.getString("task"), rs.getInt("due_minute"), rs.getLong("n")),
                args.toArray());
    }

    /**
     * The instances with a lease row, in id order, at most {@code limit}, each with its lease end,
     * its life lock and how many timeouts it holds. One statement.
     *
     * @param limit 1 to 1000
     * @throws IllegalArgumentException if {@code limit} is out of range
     */
    public List<Instance> instances(int limit) {
        checkRange("limit", limit, 1000);
        return calls.query(
                instances,
                (rs, i) -> {
                    Object locked = rs.getObject("locked");
                    return new Instance(
                            rs.getString("instance_id"),
                            Instant.ofEpochMilli(rs.getLong("lease_until")),
                            locked == null ? null : isTrue(locked),
                            rs.getLong("held"));
                },
                limit);
    }

    /** The timeout of {@code task} for {@code key}, pending or given up, if any. One statement. */
    public Optional<Stored> lookup(String task, String key) {
        Scheduling.checkArguments(task, key, "", "");
        return calls.query(lookup, STORED, task, key).stream().findFirst();
    }

    /**
     * A page of the pending timeouts of {@code task}, soonest due first (then by key): the first
     * {@code limit} after {@code after}, or from the start when it is {@code null}.
     *
     * @param limit 1 to 1000
     */
    public List<Stored> pendingAfter(String task, Position after, int limit) {
        return page(pendingForward, task, after, limit, false);
    }

    /** As {@link #pendingAfter}, the {@code limit} rows just before {@code before}, in the same order. */
    public List<Stored> pendingBefore(String task, Position before, int limit) {
        Objects.requireNonNull(before, "before must not be null");
        return page(pendingBackward, task, before, limit, true);
    }

    /**
     * A page of the given-up timeouts of {@code task}, latest failure first (then by key): the first
     * {@code limit} after {@code after}, or from the start when it is {@code null}.
     *
     * @param limit 1 to 1000
     */
    public List<Stored> failedAfter(String task, Position after, int limit) {
        return page(failedForward, task, after, limit, false);
    }

    /** As {@link #failedAfter}, the {@code limit} rows just before {@code before}, in the same order. */
    public List<Stored> failedBefore(String task, Position before, int limit) {
        Objects.requireNonNull(before, "before must not be null");
        return page(failedBackward, task, before, limit, true);
    }

    private List<Stored> page(String sql, String task, Position from, int limit, boolean backward) {
        Scheduling.checkArguments(task, "-", "", "");
        checkRange("limit", limit, 1000);
        List<Stored> rows;
        if (from == null) {
            // From the start: a position before every row (after every row, for the latest-first order).
            boolean latestFirst = sql == failedForward;
            long edge = latestFirst ? Long.MAX_VALUE : Long.MIN_VALUE;
            rows = calls.query(sql, STORED, task, edge, edge, "", limit);
        } else {
            long at = from.at().toEpochMilli();
            rows = calls.query(sql, STORED, task, at, at, from.key(), limit);
        }
        if (backward) {
            rows = new ArrayList<>(rows);
            Collections.reverse(rows);
        }
        return rows;
    }

    private static boolean isTrue(Object value) {
        return value instanceof Boolean b ? b : value instanceof Number n && n.intValue() != 0;
    }

    private static void checkRange(String name, int value, int max) {
        if (value < 1 || value > max) {
            throw new IllegalArgumentException(name + " must be 1 to " + max + ", was " + value);
        }
    }
}
