package io.wheeltimer.jdbc;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;

/**
 * The statements on the timeouts table and its instances table, in the dialect of the database.
 * Every method runs one statement through a {@link JdbcTemplate}, so it joins the Spring-managed
 * transaction of the calling thread, if any.
 *
 * <p>Rows: {@code deadline}, {@code lease_until} and {@code failed_at} are epoch milliseconds;
 * {@code version} is a fresh random value at every schedule and retry, so that a firing of an older
 * deadline, or one that another instance took over, removes nothing.
 */
final class TimeoutTable {

    /** A pending row as this instance reads or claims it. */
    record Row(String task, String key, long deadline, long version, int attempts, String holder) {}

    /** The SQL that differs between the databases. */
    enum Dialect {
        H2 {
            @Override
            String upsertTimeout(String table) {
                return "MERGE INTO " + table
                        + " (task, timeout_key, deadline, holder, version, attempts, last_error, failed_at)"
                        + " KEY (task, timeout_key) VALUES (?, ?, ?, ?, ?, 0, NULL, NULL)";
            }

            @Override
            String deletePendingReturningVersion(String table) {
                return "SELECT version FROM OLD TABLE (DELETE FROM " + table
                        + " WHERE task = ? AND timeout_key = ? AND failed_at IS NULL)";
            }

            @Override
            String upsertLease(String instances) {
                return "MERGE INTO " + instances + " (instance_id, lease_until) KEY (instance_id) VALUES (?, ?)";
            }

            @Override
            String claim(String table, String instances, int taskCount) {
                // Locks the rows to claim, skipping those another claim or a firing has locked; the
                // claim then sets their holder in the same transaction (one batch).
                return "SELECT c.task, c.timeout_key, c.deadline, c.version, c.attempts, c.holder FROM " + table
                        + " c WHERE " + claimable("c", instances, taskCount)
                        + " ORDER BY c.deadline FETCH FIRST ? ROWS ONLY FOR UPDATE SKIP LOCKED";
            }
        },

        POSTGRESQL {
            @Override
            String upsertTimeout(String table) {
                return "INSERT INTO " + table
                        + " (task, timeout_key, deadline, holder, version, attempts, last_error, failed_at)"
                        + " VALUES (?, ?, ?, ?, ?, 0, NULL, NULL) ON CONFLICT (task, timeout_key) DO UPDATE SET"
                        + " deadline = EXCLUDED.deadline, holder = EXCLUDED.holder, version = EXCLUDED.version,"
                        + " attempts = 0, last_error = NULL, failed_at = NULL";
            }

            @Override
            String deletePendingReturningVersion(String table) {
                return "DELETE FROM " + table
                        + " WHERE task = ? AND timeout_key = ? AND failed_at IS NULL RETURNING version";
            }

            @Override
            String upsertLease(String instances) {
                return "INSERT INTO " + instances + " (instance_id, lease_until) VALUES (?, ?)"
                        + " ON CONFLICT (instance_id) DO UPDATE SET lease_until = EXCLUDED.lease_until";
            }

            @Override
            String claim(String table, String instances, int taskCount) {
                // The locking CTE runs once; SKIP LOCKED leaves rows another claim (or a firing) has
                // locked to it, so two instances never both take a row.
                return "WITH due AS (SELECT c.task, c.timeout_key FROM " + table + " c WHERE "
                        + claimable("c", instances, taskCount)
                        + " ORDER BY c.deadline LIMIT ? FOR UPDATE SKIP LOCKED)"
                        + " UPDATE " + table + " t SET holder = ? FROM due"
                        + " WHERE t.task = due.task AND t.timeout_key = due.timeout_key"
                        + " RETURNING t.task, t.timeout_key, t.deadline, t.version, t.attempts, t.holder";
            }
        };

        abstract String upsertTimeout(String table);

        abstract String deletePendingReturningVersion(String table);

        abstract String upsertLease(String instances);

        /**
         * H2: selects and locks the rows to claim; PostgreSQL: claims them and returns them. Parameters:
         * due before, lease alive at, tasks..., limit; and the holder on PostgreSQL.
         */
        abstract String claim(String table, String instances, int taskCount);

        /** Pending, due within the lookahead, of a task this instance handles, and held by no live instance. */
        private static String claimable(String alias, String instances, int taskCount) {
            String a = alias + ".";
            return a + "failed_at IS NULL AND " + a + "deadline <= ? AND (" + a + "holder IS NULL OR NOT EXISTS"
                    + " (SELECT 1 FROM " + instances + " i WHERE i.instance_id = " + a + "holder"
                    + " AND i.lease_until > ?)) AND " + a + "task IN ("
                    + String.join(", ", Collections.nCopies(taskCount, "?")) + ")";
        }

        static Optional<Dialect> of(String databaseProductName) {
            if (databaseProductName.equals("H2")) {
                return Optional.of(H2);
            }
            if (databaseProductName.equals("PostgreSQL")) {
                return Optional.of(POSTGRESQL);
            }
            return Optional.empty();
        }
    }

    private static final RowMapper<Row> ROW = (rs, i) -> new Row(
            rs.getString("task"),
            rs.getString("timeout_key"),
            rs.getLong("deadline"),
            rs.getLong("version"),
            rs.getInt("attempts"),
            rs.getString("holder"));

    private final JdbcTemplate jdbc;
    private final Dialect dialect;
    private final String table;
    private final List<String> tasks;

    private final String upsertTimeout;
    private final String deletePending;
    private final String selectDeadline;
    private final String selectPending;
    private final String deleteFiring;
    private final String retry;
    private final String giveUp;
    private final String countFailed;
    private final String upsertLease;
    private final String claim;
    private final String setHolder;
    private final String releaseAll;
    private final String deleteLease;
    private final String deleteExpiredLeases;

    TimeoutTable(JdbcTemplate jdbc, Dialect dialect, String table, Set<String> tasks) {
        this.jdbc = jdbc;
        this.dialect = dialect;
        this.table = table;
        this.tasks = List.copyOf(tasks);
        String instances = instancesTable(table);
        String row = " WHERE task = ? AND timeout_key = ?";
        String held = row + " AND version = ? AND holder = ? AND failed_at IS NULL";
        this.upsertTimeout = dialect.upsertTimeout(table);
        this.deletePending = dialect.deletePendingReturningVersion(table);
        this.selectDeadline = "SELECT deadline FROM " + table + row + " AND failed_at IS NULL";
        this.selectPending = "SELECT task, timeout_key, deadline, version, attempts, holder FROM " + table + row
                + " AND failed_at IS NULL";
        this.deleteFiring = "DELETE FROM " + table + held;
        this.retry = "UPDATE " + table + " SET attempts = ?, last_error = ?, version = ?, deadline = ?" + held;
        this.giveUp = "UPDATE " + table + " SET attempts = ?, last_error = ?, failed_at = ?, holder = NULL" + held;
        this.countFailed = "SELECT COUNT(*) FROM " + table + " WHERE failed_at IS NOT NULL";
        this.upsertLease = dialect.upsertLease(instances);
        this.claim = dialect.claim(table, instances, this.tasks.size());
        this.setHolder = "UPDATE " + table + " SET holder = ?" + row;
        this.releaseAll = "UPDATE " + table + " SET holder = NULL WHERE holder = ?";
        this.deleteLease = "DELETE FROM " + instances + " WHERE instance_id = ?";
        this.deleteExpiredLeases = "DELETE FROM " + instances + " WHERE lease_until < ?";
    }

    /** The instances table of {@code table}: one lease row per live instance. */
    static String instancesTable(String table) {
        return table + "_instances";
    }

    String name() {
        return table;
    }

    /** Inserts the row of (task, key), or moves the pending (or given-up) one: pending again, attempts 0. */
    void upsert(String task, String key, long deadline, String holder, long version) {
        jdbc.update(upsertTimeout, task, key, deadline, holder, version);
    }

    /** Deletes the pending row of (task, key); its version, or empty when none was pending. */
    Optional<Long> deletePending(String task, String key) {
        List<Long> versions = jdbc.queryForList(deletePending, Long.class, task, key);
        return versions.isEmpty() ? Optional.empty() : Optional.of(versions.get(0));
    }

    Optional<Long> pendingDeadline(String task, String key) {
        List<Long> deadlines = jdbc.queryForList(selectDeadline, Long.class, task, key);
        return deadlines.isEmpty() ? Optional.empty() : Optional.of(deadlines.get(0));
    }

    Optional<Row> pending(String task, String key) {
        List<Row> rows = jdbc.query(selectPending, ROW, task, key);
        return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
    }

    /**
     * Deletes the row that {@code holder} fires, if it is still that version and still held by it.
     * Locks the row until the transaction ends, so a concurrent cancel waits and then finds nothing.
     */
    boolean deleteForFiring(String task, String key, long version, String holder) {
        return jdbc.update(deleteFiring, task, key, version, holder) == 1;
    }

    boolean retry(
            String task,
            String key,
            long version,
            String holder,
            int attempts,
            String error,
            long newVersion,
            long deadline) {
        return jdbc.update(retry, attempts, error, newVersion, deadline, task, key, version, holder) == 1;
    }

    boolean giveUp(String task, String key, long version, String holder, int attempts, String error, long failedAt) {
        return jdbc.update(giveUp, attempts, error, failedAt, task, key, version, holder) == 1;
    }

    long countFailed() {
        Long count = jdbc.queryForObject(countFailed, Long.class);
        return count == null ? 0 : count;
    }

    /** Renews the lease of {@code instance} (inserting its row the first time). */
    void renewLease(String instance, long leaseUntil) {
        jdbc.update(upsertLease, instance, leaseUntil);
    }

    /**
     * Takes for {@code instance} at most {@code limit} timeouts of its tasks that are due before
     * {@code dueBefore} and held by no instance whose lease runs past {@code now}; returns them.
     */
    List<Row> claim(String instance, long dueBefore, long now, int limit) {
        if (tasks.isEmpty()) {
            return List.of();
        }
        List<Object> args = new ArrayList<>();
        args.add(dueBefore);
        args.add(now);
        args.addAll(tasks);
        args.add(limit);
        if (dialect == Dialect.POSTGRESQL) {
            args.add(instance);
            return jdbc.query(claim, ROW, args.toArray());
        }
        List<Row> locked = jdbc.query(claim, ROW, args.toArray());
        if (locked.isEmpty()) {
            return locked;
        }
        jdbc.batchUpdate(
                setHolder,
                locked.stream()
                        .map(r -> new Object[] {instance, r.task(), r.key()})
                        .toList());
        return locked;
    }

    /** Lets go of every timeout {@code instance} holds, so that any instance may claim them. */
    int releaseAll(String instance) {
        return jdbc.update(releaseAll, instance);
    }

    void deleteLease(String instance) {
        jdbc.update(deleteLease, instance);
    }

    /** Deletes the lease rows that ran out before {@code before}: instances that are gone. */
    int deleteExpiredLeases(long before) {
        return jdbc.update(deleteExpiredLeases, before);
    }
}
