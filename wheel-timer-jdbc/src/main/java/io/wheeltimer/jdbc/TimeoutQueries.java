package io.wheeltimer.jdbc;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;

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

    /** A row made pending again by {@link #retry}: the version written and its scheduled deadline. */
    record Retried(long version, long deadline) {}

    /** A row read with everything an application or an operator sees. */
    record Stored(
            String task,
            String key,
            long deadline,
            Long dueAt,
            int attempts,
            String data,
            Long failedAt,
            String lastError) {

        /** As a pending timeout: its next run's number. */
        DurableTimeout pending() {
            return new DurableTimeout(task, key, Instant.ofEpochMilli(deadline), data, attempts + 1);
        }

        /** As a given-up timeout: its last run's number. */
        FailedTimeout failed() {
            return new FailedTimeout(
                    new DurableTimeout(task, key, Instant.ofEpochMilli(deadline), data, Math.max(1, attempts)),
                    Instant.ofEpochMilli(failedAt),
                    lastError);
        }
    }

    private static final String COLUMNS = "task, timeout_key, deadline, due_at, attempts, data, failed_at, last_error";

    private static final RowMapper<Stored> STORED = (rs, i) -> new Stored(
            rs.getString("task"),
            rs.getString("timeout_key"),
            rs.getLong("deadline"),
            rs.getObject("due_at") == null ? null : rs.getLong("due_at"),
            rs.getInt("attempts"),
            rs.getString("data"),
            rs.getObject("failed_at") == null ? null : rs.getLong("failed_at"),
            rs.getString("last_error"));

    private static final Comparator<Stored> SOONEST =
            Comparator.comparing(Stored::dueAt).thenComparing(Stored::task).thenComparing(Stored::key);

    private static final Comparator<Stored> LATEST_FAILURE = Comparator.comparing(Stored::failedAt)
            .reversed()
            .thenComparing(Stored::task)
            .thenComparing(Stored::key);

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
        String select = "SELECT " + COLUMNS + " FROM " + table;
        String row = " WHERE task = ? AND timeout_key = ?";
        this.findPending = select + row + " AND failed_at IS NULL";
        this.findFailed = select + row + " AND failed_at IS NOT NULL";
        // Pending rows are those with a due_at; given-up ones have none.
        this.pendingPage = select + " WHERE task = ? AND due_at IS NOT NULL AND failed_at IS NULL"
                + " ORDER BY due_at, timeout_key LIMIT ?";
        this.failedPage =
                select + " WHERE task = ? AND failed_at IS NOT NULL ORDER BY failed_at DESC, timeout_key LIMIT ?";
        // A loose scan: the next task after the last one found, one probe of the primary key each.
        this.tasks = "WITH RECURSIVE found (task) AS (SELECT MIN(task) FROM " + table
                + " UNION ALL SELECT (SELECT MIN(n.task) FROM " + table + " n WHERE n.task > found.task)"
                + " FROM found WHERE found.task IS NOT NULL) SELECT task FROM found WHERE task IS NOT NULL";
        this.retry = "UPDATE " + table + " SET failed_at = NULL, last_error = NULL, attempts = 0, due_at = ?,"
                + " holder = ?, version = GREATEST(version + 1, ?)" + row + " AND failed_at IS NOT NULL";
        this.version = "SELECT version, deadline FROM " + table + row;
        this.countPending =
                "SELECT COUNT(*) FROM " + table + " WHERE task = ? AND due_at IS NOT NULL AND failed_at IS NULL";
        this.discard = "DELETE FROM " + table + row + " AND failed_at IS NOT NULL";
        this.deleteVersion = "DELETE FROM " + table + row + " AND version = ? AND failed_at IS NULL";
    }

    /** The pending timeout of (task, key), with its data, if any. */
    Optional<DurableTimeout> findPending(String task, String key) {
        return calls.query(findPending, STORED, task, key).stream().findFirst().map(Stored::pending);
    }

    /** The given-up timeout of (task, key), if any. */
    Optional<FailedTimeout> findFailed(String task, String key) {
        return calls.query(findFailed, STORED, task, key).stream().findFirst().map(Stored::failed);
    }

    /** At most {@code limit} pending timeouts of {@code task} (null: every task), soonest first. */
    List<DurableTimeout> pending(String task, int limit) {
        return page(pendingPage, SOONEST, task, limit).stream()
                .map(Stored::pending)
                .toList();
    }

    /** At most {@code limit} given-up timeouts of {@code task} (null: every task), latest failure first. */
    List<FailedTimeout> failed(String task, int limit) {
        return page(failedPage, LATEST_FAILURE, task, limit).stream()
                .map(Stored::failed)
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

    private List<Stored> page(String sql, Comparator<Stored> order, String task, int limit) {
        if (task != null) {
            return calls.query(sql, STORED, task, limit);
        }
        List<Stored> all = new ArrayList<>();
        for (String each : calls.queryForList(tasks, String.class)) {
            all.addAll(calls.query(sql, STORED, each, limit));
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
    Optional<Retried> retry(String task, String key, long dueAt, String holder, long version) {
        if (calls.update(retry, dueAt, holder, version, task, key) != 1) {
            return Optional.empty();
        }
        return calls.query(this.version, (rs, i) -> new Retried(rs.getLong(1), rs.getLong(2)), task, key).stream()
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
