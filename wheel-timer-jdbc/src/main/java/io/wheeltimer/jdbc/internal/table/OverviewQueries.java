package io.wheeltimer.jdbc.internal.table;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The reads of a page that shows the table, each one statement whose cost does not grow with the
 * table: counts stop at a limit, the tasks are found by a loose scan of the primary key, upcoming
 * deadlines are read over an index range of each task, and pages are read by keyset (after or
 * before a position), never by an offset. Reads only: no write, no lock. Each statement joins the
 * transaction of the calling thread, if any. The arguments are checked by the caller.
 */
final class OverviewQueries {

    private final JdbcTemplate calls;
    private final String counts;
    private final String dueByMinute;
    private final String instances;
    private final String lookup;
    private final String pendingForward;
    private final String pendingBackward;
    private final String failedForward;
    private final String failedBackward;

    OverviewQueries(Dialect dialect) {
        this.calls = dialect.calls;
        String t = dialect.table;
        // Each count stops at the limit: where the limit-th row of the task exists (one index
        // probe, reading the limit entries before it), the count is the limit; else the rows are
        // fewer than the limit, and counted. Pending rows are those with a due_at (an index-only
        // read of (task, due_at) where the database has them); given-up ones those with a failed_at.
        this.counts = TimeoutQueries.tasksFound(t) + " SELECT f.task, " + cappedCount(t, "due_at") + " AS pending, "
                + cappedCount(t, "failed_at") + " AS failed FROM found f WHERE f.task IS NOT NULL ORDER BY f.task"
                + " LIMIT ?";
        // The minute is computed in a derived table so that the grouping names a column, not an
        // expression with a parameter (which PostgreSQL does not match to the selected one).
        this.dueByMinute = "SELECT task, due_minute, COUNT(*) AS n FROM (SELECT task, FLOOR((due_at - ?) / 60000)"
                + " AS due_minute FROM " + t + " WHERE task IN (%s) AND due_at >= ? AND due_at < ?) d"
                + " GROUP BY task, due_minute";
        String lifeLock = dialect.lifeLockHeld("i.instance_id");
        this.instances = "SELECT i.instance_id, i.lease_until, " + (lifeLock == null ? "NULL" : lifeLock)
                + " AS locked, (SELECT COUNT(*) FROM " + t + " h WHERE h.holder = i.instance_id) AS held FROM "
                + dialect.instances + " i ORDER BY i.instance_id LIMIT ?";
        String select = "SELECT " + Rows.WHOLE_COLUMNS + " FROM " + t;
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

    List<TaskCountRow> taskCounts(int countLimit, int taskLimit) {
        return calls.query(
                counts,
                (rs, i) -> new TaskCountRow(rs.getString("task"), rs.getLong("pending"), rs.getLong("failed")),
                countLimit - 1,
                countLimit,
                countLimit - 1,
                countLimit,
                taskLimit);
    }

    List<DueMinuteRow> dueByMinute(Collection<String> tasks, long fromMillis, int minutes) {
        List<Object> args = new ArrayList<>();
        args.add(fromMillis);
        args.addAll(tasks);
        args.add(fromMillis);
        args.add(fromMillis + minutes * 60_000L);
        String sql = dueByMinute.formatted(String.join(", ", Collections.nCopies(tasks.size(), "?")));
        return calls.query(
                sql,
                (rs, i) -> new DueMinuteRow(rs.getString("task"), rs.getInt("due_minute"), rs.getLong("n")),
                args.toArray());
    }

    List<InstanceRow> instances(int limit) {
        return calls.query(
                instances,
                (rs, i) -> {
                    Object locked = rs.getObject("locked");
                    return new InstanceRow(
                            rs.getString("instance_id"),
                            rs.getLong("lease_until"),
                            locked == null ? null : isTrue(locked),
                            rs.getLong("held"));
                },
                limit);
    }

    Optional<WholeRow> lookup(String task, String key) {
        return calls.query(lookup, Rows.WHOLE, task, key).stream().findFirst();
    }

    /**
     * A keyset page of {@code task}: pending rows soonest first, or given-up ones latest failure first
     * (then by key), the first {@code limit} after the position ({@code atMillis}, {@code key}), or
     * from the start when {@code key} is null; {@code backward}: the {@code limit} rows just before it,
     * in the same order.
     */
    List<WholeRow> page(boolean pending, boolean backward, String task, long atMillis, String key, int limit) {
        String sql =
                pending ? (backward ? pendingBackward : pendingForward) : (backward ? failedBackward : failedForward);
        List<WholeRow> rows;
        if (key == null) {
            // From the start: a position before every row (after every row, for the latest-first order).
            long edge = pending ? Long.MIN_VALUE : Long.MAX_VALUE;
            rows = calls.query(sql, Rows.WHOLE, task, edge, edge, "", limit);
        } else {
            rows = calls.query(sql, Rows.WHOLE, task, atMillis, atMillis, key, limit);
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
}
