package io.wheeltimer.jdbc;

import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;

/** PostgreSQL: {@code INSERT ... ON CONFLICT ... RETURNING}, {@code DELETE ... RETURNING}, and a claim in one statement. */
final class PostgresDialect extends Dialect {

    private final String upsertTimeout;
    private final String upsertTimeouts;
    private final String deleteForFiring;
    private final String deletePending;
    private final String upsertLease;
    private final String releaseAll;
    private final String renewLeaseByDatabaseTime;

    PostgresDialect(JdbcTemplate calls, JdbcTemplate bounded, String table) {
        super(calls, bounded, table);
        // The update part runs once the row is locked, so the version it writes follows the row's.
        this.upsertTimeouts = "INSERT INTO " + table + " AS t (task, timeout_key, deadline, due_at, holder,"
                + " version, attempts, last_error, failed_at, data, trace_context)"
                + " VALUES (?, ?, ?, ?, ?, ?, 0, NULL, NULL, ?, ?) ON CONFLICT (task, timeout_key) DO UPDATE SET"
                + " deadline = EXCLUDED.deadline, due_at = EXCLUDED.due_at, holder = EXCLUDED.holder,"
                + " version = GREATEST(t.version + 1, EXCLUDED.version), attempts = 0, last_error = NULL,"
                + " failed_at = NULL, data = EXCLUDED.data, trace_context = EXCLUDED.trace_context";
        this.upsertTimeout = upsertTimeouts + " RETURNING t.version";
        this.deleteForFiring = "DELETE FROM " + table + HELD + " RETURNING data, trace_context";
        this.deletePending =
                "DELETE FROM " + table + " WHERE task = ? AND timeout_key = ? AND failed_at IS NULL RETURNING version";
        this.upsertLease = "INSERT INTO " + instances + " (instance_id, lease_until) VALUES (?, ?)"
                + " ON CONFLICT (instance_id) DO UPDATE SET lease_until = EXCLUDED.lease_until";
        this.renewLeaseByDatabaseTime = "INSERT INTO " + instances + " (instance_id, lease_until) VALUES (?,"
                + " (extract(epoch from clock_timestamp()) * 1000)::bigint + ?) ON CONFLICT (instance_id)"
                + " DO UPDATE SET lease_until = EXCLUDED.lease_until RETURNING lease_until";
        this.releaseAll = "UPDATE " + table + " t SET holder = NULL FROM (SELECT task, timeout_key FROM " + table
                + " WHERE holder = ? FOR UPDATE SKIP LOCKED) mine WHERE t.task = mine.task"
                + " AND t.timeout_key = mine.timeout_key";
    }

    @Override
    String scripts() {
        return "postgresql";
    }

    @Override
    long upsertTimeout(TimeoutTable.Write w) {
        Long written = calls.queryForObject(upsertTimeout, Long.class, arguments(w));
        return written == null ? w.version() : written;
    }

    @Override
    void upsertTimeouts(List<TimeoutTable.Write> writes) {
        calls.batchUpdate(
                upsertTimeouts, writes.stream().map(PostgresDialect::arguments).toList());
    }

    private static Object[] arguments(TimeoutTable.Write w) {
        return new Object[] {
            w.task(), w.key(), w.deadline(), w.deadline(), w.holder(), w.version(), w.data(), w.traceContext()
        };
    }

    @Override
    Optional<TimeoutTable.Stored> deleteForFiring(String task, String key, long version, String holder) {
        return stored(bounded.query(deleteForFiring, TimeoutTable.STORED, task, key, version, holder));
    }

    @Override
    Optional<Long> deletePending(String task, String key) {
        return calls.queryForList(deletePending, Long.class, task, key).stream().findFirst();
    }

    @Override
    long renewLeaseByDatabaseTime(String instance, long leaseMillis) {
        Long leaseUntil = bounded.queryForObject(renewLeaseByDatabaseTime, Long.class, instance, leaseMillis);
        return leaseUntil - leaseMillis;
    }

    @Override
    int releaseAll(String instance) {
        return bounded.update(releaseAll, instance);
    }

    @Override
    void upsertLease(String instance, long leaseUntil) {
        bounded.update(upsertLease, instance, leaseUntil);
    }

    /**
     * One statement: the locking CTE runs once and {@code SKIP LOCKED} leaves rows that another claim
     * or a run has locked to it; the update sets the holder and returns the rows taken.
     */
    @Override
    List<TimeoutTable.Row> claim(
            String instance, long dueBefore, long now, long healBefore, List<String> tasks, int limit) {
        String claim = "WITH due AS (SELECT c.task, c.timeout_key FROM " + table + " c WHERE "
                + claimable("c", tasks.size())
                + " ORDER BY c.due_at LIMIT ? FOR UPDATE SKIP LOCKED)"
                + " UPDATE " + table + " t SET holder = ? FROM due"
                + " WHERE t.task = due.task AND t.timeout_key = due.timeout_key"
                + " RETURNING " + TimeoutTable.columns("t");
        return bounded.query(
                claim, TimeoutTable.ROW, claimArguments(dueBefore, instance, healBefore, now, tasks, limit, instance));
    }
}
