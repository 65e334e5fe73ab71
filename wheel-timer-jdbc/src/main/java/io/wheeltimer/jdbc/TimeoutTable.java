package io.wheeltimer.jdbc;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;

/**
 * The statements on the timeouts table and its instances table: plain SQL here, what differs per
 * database in the {@link Dialect}. Every method runs one statement (or one claim) through a
 * {@link JdbcTemplate}, so it joins the Spring-managed transaction of the calling thread, if any.
 *
 * <p>Rows: {@code deadline}, {@code lease_until} and {@code failed_at} are epoch milliseconds;
 * {@code version} is a fresh value at every schedule and retry, so that a firing of an older
 * deadline, or of a row another instance took over, removes nothing.
 */
final class TimeoutTable {

    /** A pending row as this instance reads or claims it. */
    record Row(String task, String key, long deadline, long version, int attempts, String holder) {}

    static final RowMapper<Row> ROW = (rs, i) -> new Row(
            rs.getString("task"),
            rs.getString("timeout_key"),
            rs.getLong("deadline"),
            rs.getLong("version"),
            rs.getInt("attempts"),
            rs.getString("holder"));

    private final JdbcTemplate jdbc;
    private final Dialect dialect;
    private final List<String> tasks;

    private final String selectPending;
    private final String deleteFiring;
    private final String retry;
    private final String giveUp;
    private final String countFailed;
    private final String releaseAll;
    private final String deleteLease;
    private final String deleteExpiredLeases;

    TimeoutTable(JdbcTemplate jdbc, Dialect dialect, Set<String> tasks) {
        this.jdbc = jdbc;
        this.dialect = dialect;
        this.tasks = List.copyOf(tasks);
        String table = dialect.table;
        String row = " WHERE task = ? AND timeout_key = ?";
        String held = row + " AND version = ? AND holder = ? AND failed_at IS NULL";
        this.selectPending = "SELECT task, timeout_key, deadline, version, attempts, holder FROM " + table + row
                + " AND failed_at IS NULL";
        this.deleteFiring = "DELETE FROM " + table + held;
        this.retry = "UPDATE " + table + " SET attempts = ?, last_error = ?, version = ?, deadline = ?" + held;
        this.giveUp = "UPDATE " + table + " SET attempts = ?, last_error = ?, failed_at = ?, holder = NULL" + held;
        this.countFailed = "SELECT COUNT(*) FROM " + table + " WHERE failed_at IS NOT NULL";
        this.releaseAll = "UPDATE " + table + " SET holder = NULL WHERE holder = ?";
        this.deleteLease = "DELETE FROM " + dialect.instances + " WHERE instance_id = ?";
        this.deleteExpiredLeases = "DELETE FROM " + dialect.instances + " WHERE lease_until < ?";
    }

    /** A new version for a row: each schedule and retry writes one, so that an older one matches no row. */
    static long newVersion() {
        return ThreadLocalRandom.current().nextLong();
    }

    /** The instances table of {@code table}: one lease row per live instance. */
    static String instancesTable(String table) {
        return table + "_instances";
    }

    /** Inserts the row of (task, key), or moves the pending (or given-up) one: pending again, attempts 0. */
    void upsert(String task, String key, long deadline, String holder, long version) {
        dialect.upsertTimeout(task, key, deadline, holder, version);
    }

    /** Deletes the pending row of (task, key); its version, or empty when none was pending. */
    Optional<Long> deletePending(String task, String key) {
        return dialect.deletePending(task, key);
    }

    /** The pending row of (task, key), if any. */
    Optional<Row> pending(String task, String key) {
        return jdbc.query(selectPending, ROW, task, key).stream().findFirst();
    }

    /**
     * Deletes the row that {@code holder} fires, if it is still that version and still held by it.
     * Locks the row until the transaction ends, so a concurrent cancel waits and then finds nothing.
     */
    boolean deleteForFiring(String task, String key, long version, String holder) {
        return jdbc.update(deleteFiring, task, key, version, holder) == 1;
    }

    /** Records a failed run of the row {@code holder} holds at {@code version}, as a new version due at {@code deadline}. */
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

    /** Marks the row {@code holder} holds at {@code version} given up, with its last error; held by nobody. */
    boolean giveUp(String task, String key, long version, String holder, int attempts, String error, long failedAt) {
        return jdbc.update(giveUp, attempts, error, failedAt, task, key, version, holder) == 1;
    }

    long countFailed() {
        Long count = jdbc.queryForObject(countFailed, Long.class);
        return count == null ? 0 : count;
    }

    /** Renews the lease of {@code instance} (inserting its row the first time). */
    void renewLease(String instance, long leaseUntil) {
        dialect.upsertLease(instance, leaseUntil);
    }

    /**
     * Takes for {@code instance} at most {@code limit} timeouts of its tasks that are due before
     * {@code dueBefore} and held by no instance whose lease runs past {@code now}; returns them.
     */
    List<Row> claim(String instance, long dueBefore, long now, int limit) {
        return tasks.isEmpty() ? List.of() : dialect.claim(instance, dueBefore, now, tasks, limit);
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
