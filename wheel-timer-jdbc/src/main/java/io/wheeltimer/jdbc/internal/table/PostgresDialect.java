package io.wheeltimer.jdbc.internal.table;

import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * PostgreSQL: {@code INSERT ... ON CONFLICT ... RETURNING}, {@code DELETE ... RETURNING}, and a claim in
 * one statement. The life lock is a session advisory lock whose two keys are the first 64 bits of
 * the md5 of {@code table/instance id}; the lease renewal ends the lease of every other instance whose
 * lock no session holds ({@code pg_locks}), in the same statement: except those whose lease row says
 * they keep no lock ({@code life_lock} false), and not at all where this instance keeps none itself
 * (behind a transaction pooler: {@link #keepNoLifeLock}).
 */
final class PostgresDialect extends Dialect {

    private final String upsertTimeout;
    private final String upsertTimeouts;
    private final String upsertTimeoutsAtOnce;
    private final String deleteForFiring;
    private final String deletePending;
    private final String upsertLease;
    private final String releaseAll;
    private final String renewLeaseByDatabaseTime;
    private final String upsertLeaseAlone;
    private final String renewLeaseAlone;
    private final LifeLockStatements lifeLock;

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
        // Many rows in one statement, one array per column: the server plans and runs one insert,
        // rather than one per row as a JDBC batch does (rows are distinct: ON CONFLICT meets each once).
        this.upsertTimeoutsAtOnce = upsertTimeouts.replace(
                " VALUES (?, ?, ?, ?, ?, ?, 0, NULL, NULL, ?, ?)",
                " SELECT w.task, w.timeout_key, w.deadline, w.deadline, w.holder, w.version, 0, NULL, NULL, w.data,"
                        + " w.trace_context FROM unnest(?::text[], ?::text[], ?::bigint[], ?::text[], ?::bigint[],"
                        + " ?::text[], ?::text[]) AS w(task, timeout_key, deadline, holder, version, data, trace_context)");
        this.deleteForFiring = "DELETE FROM " + table + heldAndDue() + " RETURNING data, trace_context";
        this.deletePending =
                "DELETE FROM " + table + " WHERE task = ? AND timeout_key = ? AND failed_at IS NULL RETURNING version";
        // Truncated to the millisecond as Java's clock is: a cast alone rounds, and a reading half a
        // millisecond ahead would make deadlines fire up to that early.
        String databaseNow = "floor(extract(epoch from clock_timestamp()) * 1000)::bigint";
        // The other instances that keep a life lock, whose lease is live but whose lock no session holds,
        // are dead: their lease ends now (a lease row another renewal has locked is left to it). One
        // that keeps none (behind a transaction pooler) is judged by its lease alone.
        String endDeadLeases = "WITH dead AS (UPDATE " + instances + " SET lease_until = 0 WHERE instance_id IN"
                + " (SELECT d.instance_id FROM " + instances + " d CROSS JOIN LATERAL (" + keys("d.instance_id")
                + ") k WHERE d.instance_id <> ? AND d.life_lock AND d.lease_until > " + databaseNow
                + " AND NOT EXISTS (SELECT 1 FROM pg_locks l WHERE " + lockOf("k") + ")"
                + " FOR UPDATE OF d SKIP LOCKED)) ";
        // Without a life lock of its own (behind a transaction pooler) an instance ends no lease, and
        // writes that it keeps none: the same statements without the first part, which binds the
        // instance id once more.
        this.upsertLeaseAlone = "INSERT INTO " + instances + " (instance_id, lease_until, life_lock) VALUES (?, ?, ?)"
                + " ON CONFLICT (instance_id) DO UPDATE SET lease_until = EXCLUDED.lease_until,"
                + " life_lock = EXCLUDED.life_lock";
        this.upsertLease = endDeadLeases + upsertLeaseAlone;
        this.renewLeaseAlone = "INSERT INTO " + instances + " (instance_id, lease_until, life_lock)"
                + " VALUES (?, " + databaseNow + " + ?, ?) ON CONFLICT (instance_id)"
                + " DO UPDATE SET lease_until = EXCLUDED.lease_until, life_lock = EXCLUDED.life_lock"
                + " RETURNING lease_until";
        this.renewLeaseByDatabaseTime = endDeadLeases + renewLeaseAlone;
        String myKeys = "(" + keys("CAST(? AS text)") + ") k";
        this.lifeLock = new LifeLockStatements(
                "SELECT pg_try_advisory_lock(k.k1, k.k2), pg_backend_pid() FROM " + myKeys,
                "SELECT pg_advisory_unlock(k.k1, k.k2) FROM " + myKeys,
                "SELECT EXISTS (SELECT 1 FROM pg_locks l WHERE " + lockOf("k") + " AND l.pid = pg_backend_pid()),"
                        + " pg_backend_pid() FROM " + myKeys,
                "SELECT pg_backend_pid()",
                "a session advisory lock (pg_try_advisory_lock), which pg_locks shows");
        this.releaseAll = "UPDATE " + table + " t SET holder = NULL FROM (SELECT task, timeout_key FROM " + table
                + " WHERE holder = ? FOR UPDATE SKIP LOCKED) mine WHERE t.task = mine.task"
                + " AND t.timeout_key = mine.timeout_key";
    }

    /**
     * The condition on {@code pg_locks l} that it is the granted life lock whose keys are row
     * {@code k}'s, in this database.
     */
    private static String lockOf(String k) {
        return "l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 AND l.database = (SELECT oid FROM"
                + " pg_database WHERE datname = current_database()) AND l.classid = " + k + ".k1::oid AND l.objid = "
                + k + ".k2::oid";
    }

    /**
     * The two keys (k1, k2) of the life lock of the instance whose id is {@code instanceId}, an SQL
     * expression: the first 64 bits of the md5 of the table and the id, as two integers. The table as
     * PostgreSQL names it: an unquoted name folded to lower case, so that instances configured with
     * {@code Timeouts} and {@code timeouts}, one table, take and look for the same locks.
     */
    private String keys(String instanceId) {
        return "SELECT ('x' || substr(h, 1, 8))::bit(32)::int AS k1, ('x' || substr(h, 9, 8))::bit(32)::int AS k2"
                + " FROM (SELECT md5('" + table.toLowerCase(Locale.ROOT) + "/' || " + instanceId + ") AS h) m";
    }

    @Override
    String scripts() {
        return "postgresql";
    }

    /** Floored: a cast alone rounds to the nearest millisecond. */
    @Override
    String nowMillis() {
        return "floor(extract(epoch from clock_timestamp()) * 1000)::bigint";
    }

    @Override
    String lifeLockHeld(String instanceIdColumn) {
        return "EXISTS (SELECT 1 FROM pg_locks l, (" + keys(instanceIdColumn) + ") k WHERE l.locktype = 'advisory'"
                + " AND l.granted AND l.objsubid = 2 AND l.database = (SELECT oid FROM pg_database WHERE datname ="
                + " current_database()) AND l.classid = k.k1::oid AND l.objid = k.k2::oid)";
    }

    @Override
    LifeLockStatements lifeLock() {
        return lifeLock;
    }

    @Override
    long upsertTimeout(TimeoutWrite w) {
        Long written = calls.queryForObject(upsertTimeout, Long.class, arguments(w));
        return written == null ? w.version() : written;
    }

    @Override
    void upsertTimeouts(List<TimeoutWrite> writes) {
        int n = writes.size();
        String[] tasks = new String[n];
        String[] keys = new String[n];
        Long[] deadlines = new Long[n];
        String[] holders = new String[n];
        Long[] versions = new Long[n];
        String[] data = new String[n];
        String[] contexts = new String[n];
        for (int i = 0; i < n; i++) {
            TimeoutWrite w = writes.get(i);
            tasks[i] = w.task();
            keys[i] = w.key();
            deadlines[i] = w.deadline();
            holders[i] = w.holder();
            versions[i] = w.version();
            data[i] = w.data();
            contexts[i] = w.traceContext();
        }
        calls.update(upsertTimeoutsAtOnce, statement -> {
            java.sql.Connection c = statement.getConnection();
            statement.setArray(1, c.createArrayOf("text", tasks));
            statement.setArray(2, c.createArrayOf("text", keys));
            statement.setArray(3, c.createArrayOf("bigint", deadlines));
            statement.setArray(4, c.createArrayOf("text", holders));
            statement.setArray(5, c.createArrayOf("bigint", versions));
            statement.setArray(6, c.createArrayOf("text", data));
            statement.setArray(7, c.createArrayOf("text", contexts));
        });
    }

    private static Object[] arguments(TimeoutWrite w) {
        return new Object[] {
            w.task(), w.key(), w.deadline(), w.deadline(), w.holder(), w.version(), w.data(), w.traceContext()
        };
    }

    @Override
    Optional<StoredData> deleteForFiring(String task, String key, long version, String holder, Long judgedNowMillis) {
        return heldAndDueData(deleteForFiring, task, key, version, holder, judgedNowMillis);
    }

    @Override
    Optional<Long> deletePending(String task, String key) {
        return calls.queryForList(deletePending, Long.class, task, key).stream().findFirst();
    }

    @Override
    long renewLeaseByDatabaseTime(String instance, long leaseMillis) {
        Long leaseUntil = keepsLifeLock()
                ? bounded.queryForObject(renewLeaseByDatabaseTime, Long.class, instance, instance, leaseMillis, true)
                : bounded.queryForObject(renewLeaseAlone, Long.class, instance, leaseMillis, false);
        return leaseUntil - leaseMillis;
    }

    @Override
    int releaseAll(String instance) {
        return bounded.update(releaseAll, instance);
    }

    @Override
    void upsertLease(String instance, long leaseUntil) {
        if (keepsLifeLock()) {
            bounded.update(upsertLease, instance, instance, leaseUntil, true);
        } else {
            bounded.update(upsertLeaseAlone, instance, leaseUntil, false);
        }
    }

    /**
     * One statement: the locking CTE runs once and {@code SKIP LOCKED} leaves rows that another claim
     * or a run has locked to it; the update sets the holder and returns the rows taken.
     */
    @Override
    Claim claim(String instance, long dueBefore, long now, long healBefore, List<String> tasks, int limit) {
        String claim = "WITH due AS (SELECT c.task, c.timeout_key FROM " + table + " c WHERE "
                + claimable("c", tasks.size())
                + " ORDER BY c.due_at LIMIT ? FOR UPDATE SKIP LOCKED)"
                + " UPDATE " + table + " t SET holder = ? FROM due"
                + " WHERE t.task = due.task AND t.timeout_key = due.timeout_key"
                + " RETURNING " + Rows.columns("t");
        return Claim.of(
                bounded.query(
                        claim,
                        Rows.PENDING,
                        claimArguments(dueBefore, instance, healBefore, now, tasks, limit, instance)),
                limit);
    }
}
