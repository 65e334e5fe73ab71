package io.wheeltimer.jdbc;

import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;

/** PostgreSQL: {@code INSERT ... ON CONFLICT}, {@code DELETE ... RETURNING}, and a claim in one statement. */
final class PostgresDialect extends Dialect {

    private final String upsertTimeout;
    private final String deletePending;
    private final String upsertLease;

    PostgresDialect(JdbcTemplate jdbc, String table) {
        super(jdbc, table);
        this.upsertTimeout = "INSERT INTO " + table
                + " (task, timeout_key, deadline, holder, version, attempts, last_error, failed_at)"
                + " VALUES (?, ?, ?, ?, ?, 0, NULL, NULL) ON CONFLICT (task, timeout_key) DO UPDATE SET"
                + " deadline = EXCLUDED.deadline, holder = EXCLUDED.holder, version = EXCLUDED.version,"
                + " attempts = 0, last_error = NULL, failed_at = NULL";
        this.deletePending =
                "DELETE FROM " + table + " WHERE task = ? AND timeout_key = ? AND failed_at IS NULL RETURNING version";
        this.upsertLease = "INSERT INTO " + instances + " (instance_id, lease_until) VALUES (?, ?)"
                + " ON CONFLICT (instance_id) DO UPDATE SET lease_until = EXCLUDED.lease_until";
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

    /**
     * One statement: the locking CTE runs once and {@code SKIP LOCKED} leaves rows that another claim
     * or a firing has locked to it; the update sets the holder and returns the rows taken.
     */
    @Override
    List<TimeoutTable.Row> claim(String instance, long dueBefore, long now, List<String> tasks, int limit) {
        String claim = "WITH due AS (SELECT c.task, c.timeout_key FROM " + table + " c WHERE "
                + claimable("c", tasks.size())
                + " ORDER BY c.deadline LIMIT ? FOR UPDATE SKIP LOCKED)"
                + " UPDATE " + table + " t SET holder = ? FROM due"
                + " WHERE t.task = due.task AND t.timeout_key = due.timeout_key"
                + " RETURNING t.task, t.timeout_key, t.deadline, t.version, t.attempts, t.holder";
        return jdbc.query(claim, TimeoutTable.ROW, claimArguments(dueBefore, now, tasks, limit, instance));
    }
}
