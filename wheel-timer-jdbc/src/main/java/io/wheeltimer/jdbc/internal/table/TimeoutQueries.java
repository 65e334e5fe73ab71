package io.wheeltimer.jdbc.internal.table;

import io.wheeltimer.jdbc.DurableTimeout;
import io.wheeltimer.jdbc.FailedTimeout;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The statements on the whole table that an application or an operator runs, beside the timer's own
 * in {@link TimeoutTable}: a timeout with its data, pages of pending and given-up timeouts, and the
 * mending of given-up ones. Plain SQL that every supported database runs alike; each statement joins
 * the transaction of the calling thread.
 *
 * <p>Every page is read through an index, whatever the size of the table: pending timeouts of a task
 * by {@code (task, due_at)}, given-up ones by {@code (task, failed_at)}. For every task at once, the
 * tasks are found by a loose scan of the primary key (one index probe per task) and each task's page
 * read as above; the pages are merged here. No index of its own serves the order over all tasks, so
 * that no write pays for it. The tasks no handler here knows are found by the same loose scan, and only
 * their pending rows counted: with every task handled, a few probes, however many rows there are.
 */
final class TimeoutQueries {

    private static final Comparator<WholeRow> SOONEST =
            Comparator.comparing(WholeRow::dueAt).thenComparing(WholeRow::task).thenComparing(WholeRow::key);

    private static final Comparator<WholeRow> LATEST_FAILURE = Comparator.comparing(WholeRow::failedAt)
            .reversed()
            .thenComparing(WholeRow::task)
            .thenComparing(WholeRow::key);

    private final JdbcTemplate calls;
    private final JdbcTemplate bounded;
    private final String findPending;
    private final String findFailed;
    private final String pendingPage;
    private final String failedPage;
    private final String tasks;
    private final String retry;
    private final String version;
    private final String countPending;
    private final String discard;
    private final String deleteVersion;

    TimeoutQueries(Dialect dialect) {
        this.calls = dialect.calls;
        this.bounded = dialect.bounded;
        String table = dialect.table;
        String select = "SELECT " + Rows.WHOLE_COLUMNS + " FROM " + table;
        String row = " WHERE task = ? AND timeout_key = ?";
        this.findPending = select + row + " AND failed_at IS NULL";
        this.findFailed = select + row + " AND failed_at IS NOT NULL";
        // Pending rows are those with a due_at; given-up ones have none.
        this.pendingPage = select + " WHERE task = ? AND due_at IS NOT NULL AND failed_at IS NULL"
                + " ORDER BY due_at, timeout_key LIMIT ?";
        this.failedPage =
                select + " WHERE task = ? AND failed_at IS NOT NULL ORDER BY failed_at DESC, timeout_key LIMIT ?";
        // A loose scan: the next task after the last one found, one probe of the primary key each.
        this.tasks = tasksFound(table) + " SELECT task FROM found WHERE task IS NOT NULL";
        this.retry = "UPDATE " + table + " SET failed_at = NULL, last_error = NULL, attempts = 0, due_at = ?,"
                + " holder = ?, version = GREATEST(version + 1, ?)" + row + " AND failed_at IS NOT NULL";
        this.version = "SELECT version, deadline FROM " + table + row;
        this.countPending =
                "SELECT COUNT(*) FROM " + table + " WHERE task = ? AND due_at IS NOT NULL AND failed_at IS NULL";
        this.discard = "DELETE FROM " + table + row + " AND failed_at IS NOT NULL";
        this.deleteVersion = "DELETE FROM " + table + row + " AND version = ? AND failed_at IS NULL";
    }

    /**
     * A loose scan of the primary key of {@code table}: the common table {@code found (task)}, each task
     * in the table found by one index probe for the next after the last, then a null.
     */
    static String tasksFound(String table) {
        return "WITH RECURSIVE found (task) AS (SELECT MIN(task) FROM " + table
                + " UNION ALL SELECT (SELECT MIN(n.task) FROM " + table + " n WHERE n.task > found.task)"
                + " FROM found WHERE found.task IS NOT NULL)";
    }

    /** The pending timeout of (task, key), with its data, if any. */
    Optional<DurableTimeout> findPending(String task, String key) {
        return calls.query(findPending, Rows.WHOLE, task, key).stream()
                .findFirst()
                .map(WholeRow::timeout);
    }

    /** The given-up timeout of (task, key), if any. */
    Optional<FailedTimeout> findFailed(String task, String key) {
        return calls.query(findFailed, Rows.WHOLE, task, key).stream()
                .findFirst()
                .map(WholeRow::failed);
    }

    /** At most {@code limit} pending timeouts of {@code task} (null: every task), soonest first. */
    List<DurableTimeout> pending(String task, int limit) {
        return page(pendingPage, SOONEST, task, limit).stream()
                .map(WholeRow::timeout)
                .toList();
    }

    /** At most {@code limit} given-up timeouts of {@code task} (null: every task), latest failure first. */
    List<FailedTimeout> failed(String task, int limit) {
        return page(failedPage, LATEST_FAILURE, task, limit).stream()
                .map(WholeRow::failed)
                .toList();
    }

    /**
     * How many pending timeouts each task in the table that {@code counted} accepts has; none: left out.
     * Run by the poller too, so each statement has the timer's query timeout.
     */
    Map<String, Long> countPending(Predicate<String> counted) {
        Map<String, Long> counts = new TreeMap<>();
        for (String task : bounded.queryForList(tasks, String.class)) {
            if (counted.test(task)) {
                Long count = bounded.queryForObject(countPending, Long.class, task);
                if (count != null && count > 0) {
                    counts.put(task, count);
                }
            }
        }
        return counts;
    }

    private List<WholeRow> page(String sql, Comparator<WholeRow> order, String task, int limit) {
        if (task != null) {
            return calls.query(sql, Rows.WHOLE, task, limit);
        }
        List<WholeRow> all = new ArrayList<>();
        for (String each : calls.queryForList(tasks, String.class)) {
            all.addAll(calls.query(sql, Rows.WHOLE, each, limit));
        }
        all.sort(order);
        return all.size() > limit ? List.copyOf(all.subList(0, limit)) : all;
    }

    /**
     * Makes the given-up row of (task, key) pending again: due at {@code dueAt}, held by
     * {@code holder} (or nobody), no attempts, a version above {@code version} and the row's. Returns
     * the version written and the deadline, or empty when no given-up row was there. Two statements:
     * run it in a transaction.
     */
    Optional<RetriedRow> retry(String task, String key, long dueAt, String holder, long version) {
        if (calls.update(retry, dueAt, holder, version, task, key) != 1) {
            return Optional.empty();
        }
        return calls.query(this.version, (rs, i) -> new RetriedRow(rs.getLong(1), rs.getLong(2)), task, key).stream()
                .findFirst();
    }

    /** Deletes the given-up row of (task, key); whether there was one. */
    boolean discard(String task, String key) {
        return calls.update(discard, task, key) == 1;
    }

    /** Deletes the pending rows of {@code task}, each at the version given (locked by the caller), in one batch. */
    int deletePending(String task, List<String> keys, List<Long> versions) {
        List<Object[]> args = new ArrayList<>(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            args.add(new Object[] {task, keys.get(i), versions.get(i)});
        }
        int deleted = 0;
        for (int count : calls.batchUpdate(deleteVersion, args)) {
            deleted += count == java.sql.Statement.SUCCESS_NO_INFO ? 1 : Math.max(0, count);
        }
        return deleted;
    }
}
