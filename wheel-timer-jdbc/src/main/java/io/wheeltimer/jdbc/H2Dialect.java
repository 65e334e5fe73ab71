package io.wheeltimer.jdbc;

import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;

/** H2 (one instance: tests, samples, the embedded default): {@code MERGE ... KEY} and a claim in two statements. */
final class H2Dialect extends Dialect {

    private final String upsertTimeout;
    private final String deletePending;
    private final String upsertLease;
    private final String setHolder;

    H2Dialect(JdbcTemplate jdbc, String table) {
        super(jdbc, table);
        this.upsertTimeout = "MERGE INTO " + table
                + " (task, timeout_key, deadline, holder, version, attempts, last_error, failed_at)"
                + " KEY (task, timeout_key) VALUES (?, ?, ?, ?, ?, 0, NULL, NULL)";
        this.deletePending = "SELECT version FROM OLD TABLE (DELETE FROM " + table
                + " WHERE task = ? AND timeout_key = ? AND failed_at IS NULL)";
        this.upsertLease = "MERGE INTO " + instances + " (instance_id, lease_until) KEY (instance_id) VALUES (?, ?)";
        this.setHolder = "UPDATE " + table + " SET holder = ? WHERE task = ? AND timeout_key = ?";
    }

    @Override
    void upsertTimeout(String task, String key, long deadline, String holder, long version) {
        jdbc.update(upsertTimeout, task, key, deadline, holder, version);
    }

    @Override
    Optional<Long> deletePending(String task, String key) {
        return jdbc.queryForList(deletePending, Long.class, task, key).stream().findFirst();
    }

    @Override
    void upsertLease(String instance, long leaseUntil) {
        jdbc.update(upsertLease, instance, leaseUntil);
    }

    /** Locks the rows to claim, skipping those another transaction has locked, then sets their holder (one batch). */
    @Override
    List<TimeoutTable.Row> claim(String instance, long dueBefore, long now, List<String> tasks, int limit) {
        String select = "SELECT c.task, c.timeout_key, c.deadline, c.version, c.attempts, c.holder FROM " + table
                + " c WHERE " + claimable("c", tasks.size())
                + " ORDER BY c.deadline FETCH FIRST ? ROWS ONLY FOR UPDATE SKIP LOCKED";
        List<TimeoutTable.Row> locked =
                jdbc.query(select, TimeoutTable.ROW, claimArguments(dueBefore, now, tasks, limit));
        if (!locked.isEmpty()) {
            jdbc.batchUpdate(
                    setHolder,
                    locked.stream()
                            .map(r -> new Object[] {instance, r.task(), r.key()})
                            .toList());
        }
        return locked;
    }
}
