package io.wheeltimer.jdbc.internal.table;

import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.springframework.dao.DataAccessException;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * H2 (one instance: tests, samples, the embedded default): {@code MERGE ... USING} read through
 * {@code FINAL TABLE}, and a claim in two statements.
 *
 * <p>Where PostgreSQL waits for a row lock, H2 gives up after its lock timeout (a second by
 * default): an application's call that meets a row locked by a run (a {@code cancel} racing a
 * handler) tries again until the lock is released, so that it answers as it would on PostgreSQL.
 * Two first schedules of one key may both try to insert it; the one that loses merges again.
 */
final class H2Dialect extends Dialect {

    /** H2's error code for a lock wait that ran out. */
    private static final int LOCK_TIMEOUT_ERROR = 50200;

    /** How long an application's call keeps waiting for a row that a run holds locked. */
    private static final long LOCK_WAIT_NANOS = TimeUnit.MINUTES.toNanos(10);

    private final String upsertTimeout;
    private final String merge;
    private final String lockPending;
    private final String deleteForFiring;
    private final String deletePending;
    private final String upsertLease;
    private final String releaseAll;
    private final String renewLeaseByDatabaseTime;

    H2Dialect(JdbcTemplate calls, JdbcTemplate bounded, String table) {
        super(calls, bounded, table);
        // VARCHAR without a length: H2's CAST to VARCHAR(n) cuts a longer value without a word, and the
        // column's own length is what must refuse it.
        this.merge = "MERGE INTO " + table + " t USING (VALUES (CAST(? AS VARCHAR), CAST(? AS VARCHAR), CAST(? AS"
                + " BIGINT), CAST(? AS VARCHAR), CAST(? AS BIGINT), CAST(? AS CHARACTER LARGE OBJECT), CAST(? AS"
                + " VARCHAR))) s (task, timeout_key, deadline, holder, version, data, trace_context) ON t.task = s.task"
                + " AND t.timeout_key = s.timeout_key WHEN MATCHED THEN UPDATE SET deadline = s.deadline, due_at ="
                + " s.deadline, holder = s.holder, version = GREATEST(t.version + 1, s.version), attempts = 0,"
                + " last_error = NULL, failed_at = NULL, data = s.data, trace_context = s.trace_context WHEN NOT"
                + " MATCHED THEN INSERT (task, timeout_key, deadline, due_at, holder, version, attempts, data,"
                + " trace_context) VALUES (s.task, s.timeout_key, s.deadline, s.deadline, s.holder, s.version, 0,"
                + " s.data, s.trace_context)";
        this.upsertTimeout = "SELECT version FROM FINAL TABLE (" + merge + ")";
        this.lockPending =
                "SELECT version FROM " + table + " WHERE task = ? AND timeout_key = ? AND failed_at IS NULL FOR UPDATE";
        this.deleteForFiring = "SELECT data, trace_context FROM OLD TABLE (DELETE FROM " + table + heldAndDue() + ")";
        this.deletePending = "SELECT version FROM OLD TABLE (DELETE FROM " + table
                + " WHERE task = ? AND timeout_key = ? AND failed_at IS NULL)";
        this.upsertLease = "MERGE INTO " + instances + " (instance_id, lease_until) KEY (instance_id) VALUES (?, ?)";
        this.renewLeaseByDatabaseTime = "SELECT lease_until FROM FINAL TABLE (MERGE INTO " + instances
                + " (instance_id, lease_until) KEY (instance_id) VALUES (?,"
                + " " + nowMillis() + " + ?))";
        this.releaseAll = "UPDATE " + table + " SET holder = NULL WHERE holder = ? AND (task, timeout_key) IN"
                + " (SELECT task, timeout_key FROM " + table + " WHERE holder = ? FOR UPDATE SKIP LOCKED)";
    }

    @Override
    String scripts() {
        return "h2";
    }

    @Override
    String nowMillis() {
        return "CAST(FLOOR(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000) AS BIGINT)";
    }

    @Override
    long upsertTimeout(TimeoutWrite write) {
        return waitingForLocks(() -> {
            try {
                return merge(write);
            } catch (DuplicateKeyException e) {
                return merge(write); // a concurrent first insert won
            }
        });
    }

    private long merge(TimeoutWrite w) {
        Long written = calls.queryForObject(upsertTimeout, Long.class, arguments(w));
        return written == null ? w.version() : written;
    }

    @Override
    void upsertTimeouts(List<TimeoutWrite> writes) {
        waitingForLocks(() -> calls.batchUpdate(
                merge, writes.stream().map(H2Dialect::arguments).toList()));
    }

    private static Object[] arguments(TimeoutWrite w) {
        return new Object[] {w.task(), w.key(), w.deadline(), w.holder(), w.version(), w.data(), w.traceContext()};
    }

    @Override
    Optional<StoredData> deleteForFiring(String task, String key, long version, String holder, Long judgedNowMillis) {
        return heldAndDueData(deleteForFiring, task, key, version, holder, judgedNowMillis);
    }

    /**
     * One primary-key lookup per key (H2 runs a long IN list of a locking read slowly, and in memory a
     * statement costs little), each tried again while a run holds its row locked.
     */
    @Override
    java.util.Map<String, Long> lockPending(String task, List<String> keys) {
        java.util.Map<String, Long> versions = new java.util.HashMap<>();
        for (String key : keys) {
            waitingForLocks(() -> calls.queryForList(lockPending, Long.class, task, key).stream()
                            .findFirst())
                    .ifPresent(version -> versions.put(key, version));
        }
        return versions;
    }

    @Override
    Optional<Long> deletePending(String task, String key) {
        return waitingForLocks(() -> calls.queryForList(deletePending, Long.class, task, key).stream()
                .findFirst());
    }

    @Override
    long renewLeaseByDatabaseTime(String instance, long leaseMillis) {
        Long leaseUntil = bounded.queryForObject(renewLeaseByDatabaseTime, Long.class, instance, leaseMillis);
        return leaseUntil - leaseMillis;
    }

    @Override
    int releaseAll(String instance) {
        return bounded.update(releaseAll, instance, instance);
    }

    @Override
    void upsertLease(String instance, long leaseUntil) {
        bounded.update(upsertLease, instance, leaseUntil);
    }

    /**
     * H2 lets no {@code UPDATE} read its own rows with {@code SKIP LOCKED}: a locking read of the
     * claimable rows, soonest first, skipping those another transaction has locked (H2 locks only the
     * rows it returns); then their holder set, one batch. The lease subquery is a plain read: a locking
     * clause on the outer query does not lock (nor skip) the rows a subquery reads.
     */
    @Override
    Claim claim(String instance, long dueBefore, long now, long healBefore, List<String> tasks, int limit) {
        String select = "SELECT " + Rows.columns("c") + " FROM " + table + " c WHERE " + claimable("c", tasks.size())
                + " ORDER BY c.due_at FETCH FIRST ? ROWS ONLY FOR UPDATE SKIP LOCKED";
        List<PendingRow> locked =
                bounded.query(select, Rows.PENDING, claimArguments(dueBefore, instance, healBefore, now, tasks, limit));
        return Claim.of(hold(instance, locked), limit);
    }

    /** Runs {@code call} again while it times out on a lock, for up to ten minutes. */
    private static <T> T waitingForLocks(Supplier<T> call) {
        long end = System.nanoTime() + LOCK_WAIT_NANOS;
        while (true) {
            try {
                return call.get();
            } catch (DataAccessException e) {
                if (!isLockTimeout(e) || System.nanoTime() - end > 0) {
                    throw e;
                }
            }
        }
    }

    /** H2's "Timeout trying to lock table" (error 50200), whichever exception Spring made of it. */
    private static boolean isLockTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException sql && sql.getErrorCode() == LOCK_TIMEOUT_ERROR) {
                return true;
            }
        }
        return false;
    }
}
