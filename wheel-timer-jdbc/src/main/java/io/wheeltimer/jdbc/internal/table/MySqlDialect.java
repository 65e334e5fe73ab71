package io.wheeltimer.jdbc.internal.table;

import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowCallbackHandler;
import org.springframework.jdbc.support.GeneratedKeyHolder;

/**
 * MySQL 8.0+, and MariaDB 10.6+ reached through MySQL Connector/J (which names it "MySQL"): only what
 * both databases understand, so this runs on either. {@code INSERT ... ON DUPLICATE KEY UPDATE}, which
 * returns nothing: the version written is read back through {@code LAST_INSERT_ID(expr)}. A delete that
 * first locks the row it reads. The release in two statements, the rows locked by a
 * {@code SELECT ... FOR UPDATE SKIP LOCKED} first (neither database lets an {@code UPDATE} read its own
 * table in a subquery); the claim in three, a plain read finding the rows before that locking read
 * takes them by key ({@link #claim}).
 *
 * <p>InnoDB's locking reads read the newest committed row, whatever the isolation level, and hold it
 * locked to the end of the transaction: each read-then-write below acts on what it read. Under
 * {@code REPEATABLE READ} (the default) they also lock the gaps they scan, so a write may wait for a
 * claim to commit, or, in a transaction that writes several rows, end in a deadlock that InnoDB
 * resolves by rolling one transaction back (a {@code DataAccessException} for its caller).
 *
 * <p>The life lock is a user lock ({@code GET_LOCK}), named {@code wheel_timer/} and 40 hex digits
 * of the SHA-2 of the database, table and instance id (user locks are the server's, not a database's);
 * the claim counts a holder alive only while its lock is used ({@code IS_USED_LOCK}), in the same
 * statement: except one whose lease row says it keeps no lock ({@code life_lock} false), which its
 * lease alone judges, and not at all where this instance keeps none itself (behind a
 * transaction-pooling proxy: {@link #keepNoLifeLock}).
 */
class MySqlDialect extends Dialect {

    /** Rows one bulk upsert writes at most: 4,000 parameters, well below the drivers' limits. */
    private static final int ROWS_PER_STATEMENT = 500;

    /**
     * What a bulk upsert leaves of the server's {@code max_allowed_packet} for its rows' values: the
     * statement's own text (its column lists and its update clause, under a kilobyte) and the
     * protocol's headers, with room to spare.
     */
    private static final long STATEMENT_TEXT_BYTES = 16 * 1024;

    /** The server's {@code max_allowed_packet}, read at the first bulk upsert; 0 until then. */
    private volatile long maxAllowedPacket;

    private final String upsertTimeout;
    private final String lockFiring;
    private final String deleteFiring;
    private final String lastInsertId;
    private final String lockPending;
    private final String deleteVersion;
    private final String upsertLease;
    private final String renewLeaseByDatabaseTime;
    private final String lockHeld;
    private final String release;
    private final LifeLockStatements lifeLock;

    MySqlDialect(JdbcTemplate calls, JdbcTemplate bounded, String table) {
        super(calls, bounded, table);
        // The update part runs on the row once it is locked, so the version it writes follows the row's;
        // LAST_INSERT_ID(expr) keeps that value for this connection to read. The new values are bound
        // twice rather than read with VALUES(), which MySQL deprecates and MariaDB renamed.
        this.upsertTimeout = "INSERT INTO " + table + " (task, timeout_key, deadline, due_at, holder, version,"
                + " attempts, last_error, failed_at, data, trace_context) VALUES (?, ?, ?, ?, ?, ?, 0, NULL, NULL, ?, ?)"
                + " ON DUPLICATE KEY UPDATE deadline = ?, due_at = ?, holder = ?,"
                + " version = LAST_INSERT_ID(GREATEST(version + 1, ?)), attempts = 0, last_error = NULL,"
                + " failed_at = NULL, data = ?, trace_context = ?";
        this.lockFiring = "SELECT data, trace_context FROM " + table + heldAndDue() + " FOR UPDATE";
        this.deleteFiring = "DELETE FROM " + table + HELD;
        this.lastInsertId = "SELECT LAST_INSERT_ID()";
        this.lockPending =
                "SELECT version FROM " + table + " WHERE task = ? AND timeout_key = ? AND failed_at IS NULL FOR UPDATE";
        this.deleteVersion =
                "DELETE FROM " + table + " WHERE task = ? AND timeout_key = ? AND version = ? AND failed_at IS NULL";
        this.upsertLease = "INSERT INTO " + instances + " (instance_id, lease_until, life_lock) VALUES (?, ?, ?)"
                + " ON DUPLICATE KEY UPDATE lease_until = ?, life_lock = ?";
        String databaseNow = nowMillis();
        this.renewLeaseByDatabaseTime = "INSERT INTO " + instances + " (instance_id, lease_until, life_lock)"
                + " VALUES (?, LAST_INSERT_ID(" + databaseNow + " + ?), ?) ON DUPLICATE KEY UPDATE"
                + " lease_until = LAST_INSERT_ID(" + databaseNow + " + ?), life_lock = ?";
        this.lockHeld = "SELECT task, timeout_key FROM " + table + " WHERE holder = ? FOR UPDATE SKIP LOCKED";
        this.release = "UPDATE " + table + " SET holder = NULL WHERE task = ? AND timeout_key = ? AND holder = ?";
        this.lifeLock = new LifeLockStatements(
                "SELECT GET_LOCK(" + lockName("?") + ", 0), CONNECTION_ID()",
                "SELECT RELEASE_LOCK(" + lockName("?") + ")",
                "SELECT COALESCE(IS_USED_LOCK(" + lockName("?") + ") = CONNECTION_ID(), 0), CONNECTION_ID()",
                "SELECT CONNECTION_ID()",
                "a user lock (GET_LOCK), which IS_USED_LOCK shows");
    }

    /**
     * The name of the life lock of the instance whose id is {@code instanceId}, an SQL expression: at
     * most 64 characters, the same whatever the character sets of the connection and the column.
     */
    private String lockName(String instanceId) {
        return "CONCAT('wheel_timer/', LEFT(SHA2(CONCAT(CONVERT(COALESCE(DATABASE(), '') USING utf8mb4), '/',"
                + " CONVERT('" + table + "' USING utf8mb4), '/', CONVERT(" + instanceId
                + " USING utf8mb4)), 256), 40))";
    }

    @Override
    LifeLockStatements lifeLock() {
        return lifeLock;
    }

    @Override
    String holderAlive(String i) {
        // One that keeps no lock (behind a transaction pooler) is judged by its lease alone; and so is
        // every one by an instance that keeps none itself.
        return keepsLifeLock()
                ? " AND (NOT " + i + ".life_lock OR IS_USED_LOCK(" + lockName(i + ".instance_id") + ") IS NOT NULL)"
                : "";
    }

    @Override
    String scripts() {
        return "mysql";
    }

    @Override
    String lifeLockHeld(String instanceIdColumn) {
        return "IS_USED_LOCK(" + lockName(instanceIdColumn) + ") IS NOT NULL";
    }

    /**
     * Microseconds since the epoch counted between two {@code DATETIME}s, which carry no time zone:
     * {@code UNIX_TIMESTAMP(NOW(6))} would convert the session's local time back, and in the repeated
     * hour of a daylight-saving zone that local time stands for two instants.
     */
    @Override
    String nowMillis() {
        return "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)";
    }

    @Override
    String bigintParameter() {
        return "CAST(? AS SIGNED)";
    }

    /**
     * One statement, and a second only when it updated a row: an insert writes {@code version} itself
     * (one affected row), an update (two affected rows, as it always changes the version) writes what
     * {@code LAST_INSERT_ID()} then returns on this connection, which no other session can change.
     * Both run on the connection of the caller's transaction.
     */
    @Override
    long upsertTimeout(TimeoutWrite w) {
        int affected = calls.update(upsertTimeout, arguments(w));
        if (affected == 1) {
            return w.version();
        }
        Long written = calls.queryForObject(lastInsertId, Long.class);
        return written == null ? w.version() : written;
    }

    /**
     * Many rows a statement ({@value #ROWS_PER_STATEMENT} at most): a JDBC batch would send one upsert
     * per row, a round trip each unless the driver rewrites it. {@code VALUES(column)} names the value
     * a row would have inserted: both MariaDB and MySQL take it (MySQL's row alias is not MariaDB's).
     * A statement is also kept under the server's {@code max_allowed_packet} (16 MB by default on
     * MariaDB, 64 MB on MySQL, often less where it was set by hand), which the server checks for the
     * whole statement: 500 rows of 64 KB data are 32 MB. Its rows are counted at the most a driver
     * sends for them, every quote and backslash escaped ({@link WriteChunks}).
     */
    @Override
    void upsertTimeouts(List<TimeoutWrite> writes) {
        long maxValueBytes = Math.max(1, maxAllowedPacket() - STATEMENT_TEXT_BYTES);
        for (List<TimeoutWrite> chunk : WriteChunks.of(writes, ROWS_PER_STATEMENT, maxValueBytes)) {
            Object[] arguments = new Object[chunk.size() * 8];
            int i = 0;
            for (TimeoutWrite w : chunk) {
                arguments[i++] = w.task();
                arguments[i++] = w.key();
                arguments[i++] = w.deadline();
                arguments[i++] = w.deadline();
                arguments[i++] = w.holder();
                arguments[i++] = w.version();
                arguments[i++] = w.data();
                arguments[i++] = w.traceContext();
            }
            calls.update(upsertRows(chunk.size()), arguments);
        }
    }

    /**
     * The largest statement the server takes, in bytes: read once, as the server's setting for new
     * sessions changes only by an operator's {@code SET GLOBAL} (then a restart of the timer reads it
     * again).
     */
    private long maxAllowedPacket() {
        long read = maxAllowedPacket;
        if (read == 0) {
            Long value = calls.queryForObject("SELECT @@max_allowed_packet", Long.class);
            read = value == null ? 0 : value;
            maxAllowedPacket = read;
        }
        return read;
    }

    private String upsertRows(int rows) {
        StringBuilder sql = new StringBuilder("INSERT INTO ")
                .append(table)
                .append(
                        " (task, timeout_key, deadline, due_at, holder, version, attempts, last_error, failed_at, data,")
                .append(" trace_context) VALUES ");
        for (int r = 0; r < rows; r++) {
            sql.append(r == 0 ? "" : ", ").append("(?, ?, ?, ?, ?, ?, 0, NULL, NULL, ?, ?)");
        }
        return sql.append(" ON DUPLICATE KEY UPDATE deadline = VALUES(deadline), due_at = VALUES(due_at),")
                .append(" holder = VALUES(holder), version = GREATEST(version + 1, VALUES(version)), attempts = 0,")
                .append(" last_error = NULL, failed_at = NULL, data = VALUES(data),")
                .append(" trace_context = VALUES(trace_context)")
                .toString();
    }

    private static Object[] arguments(TimeoutWrite w) {
        return new Object[] {
            w.task(),
            w.key(),
            w.deadline(),
            w.deadline(),
            w.holder(),
            w.version(),
            w.data(),
            w.traceContext(),
            w.deadline(),
            w.deadline(),
            w.holder(),
            w.version(),
            w.data(),
            w.traceContext()
        };
    }

    /** A locking read of what is stored, then the delete: MySQL has no {@code DELETE ... RETURNING}. */
    @Override
    Optional<StoredData> deleteForFiring(String task, String key, long version, String holder, Long judgedNowMillis) {
        Optional<StoredData> stored = heldAndDueData(lockFiring, task, key, version, holder, judgedNowMillis);
        if (stored.isPresent() && bounded.update(deleteFiring, task, key, version, holder) != 1) {
            return Optional.empty();
        }
        return stored;
    }

    /**
     * Reads the pending row's version with a locking read (the newest committed, waiting while a run
     * holds the row), then deletes the row only if it still has that version: correct inside a
     * transaction, where the lock keeps the row as read, and outside one too, where a call runs each
     * statement on its own and a run or a reschedule may come in between (then it reads again).
     */
    @Override
    Optional<Long> deletePending(String task, String key) {
        for (int attempt = 0; attempt < 10; attempt++) {
            Optional<Long> version = calls.queryForList(lockPending, Long.class, task, key).stream()
                    .findFirst();
            if (version.isEmpty() || calls.update(deleteVersion, task, key, version.get()) == 1) {
                return version;
            }
        }
        return Optional.empty(); // rescheduled ten times while this read it: the newest schedule stands
    }

    /** Locks the rows {@code instance} holds that no run has locked, then lets go of them (one batch). */
    @Override
    int releaseAll(String instance) {
        List<Object[]> mine =
                bounded.query(lockHeld, (rs, i) -> new Object[] {rs.getString(1), rs.getString(2), instance}, instance);
        if (!mine.isEmpty()) {
            bounded.batchUpdate(release, mine);
        }
        return mine.size(); // each locked here, so each released
    }

    @Override
    void upsertLease(String instance, long leaseUntil) {
        boolean lock = keepsLifeLock();
        bounded.update(upsertLease, instance, leaseUntil, lock, leaseUntil, lock);
    }

    /**
     * One statement: the lease is the database's time plus the lease, and LAST_INSERT_ID(expr) hands
     * that value back in the statement's reply (its "generated key"), on the insert as on the update.
     */
    @Override
    long renewLeaseByDatabaseTime(String instance, long leaseMillis) {
        GeneratedKeyHolder keys = new GeneratedKeyHolder();
        bounded.update(
                connection -> {
                    PreparedStatement statement =
                            connection.prepareStatement(renewLeaseByDatabaseTime, Statement.RETURN_GENERATED_KEYS);
                    statement.setString(1, instance);
                    statement.setLong(2, leaseMillis);
                    statement.setBoolean(3, keepsLifeLock());
                    statement.setLong(4, leaseMillis);
                    statement.setBoolean(5, keepsLifeLock());
                    return statement;
                },
                keys);
        Number leaseUntil = keys.getKeyList().isEmpty()
                ? null
                : (Number) keys.getKeyList().get(0).values().iterator().next();
        if (leaseUntil == null) {
            leaseUntil = bounded.queryForObject(lastInsertId, Long.class); // a driver that reports no key
        }
        return leaseUntil.longValue() - leaseMillis;
    }

    /**
     * A plain read finds the claimable rows, soonest first; a locking read by their keys takes those
     * still claimable, skipping the locked ones; then the holder set. In one locking read, InnoDB
     * would lock every row it scans on its way through the due index (the rows due soon that this or
     * another live instance holds among them) and, under {@code REPEATABLE READ}, keep them locked
     * until the claim commits: each run of one of them would wait for the claim. Here the locking read
     * reaches the rows by their primary key, and the condition is judged again on what it locked.
     */
    @Override
    Claim claim(String instance, long dueBefore, long now, long healBefore, List<String> tasks, int limit) {
        Map<String, List<String>> keysByTask = new LinkedHashMap<>();
        bounded.query(
                "SELECT c.task, c.timeout_key FROM " + table + " c WHERE " + claimable("c", tasks.size())
                        + " ORDER BY c.due_at LIMIT ?",
                (RowCallbackHandler) rs -> keysByTask
                        .computeIfAbsent(rs.getString(1), t -> new ArrayList<>())
                        .add(rs.getString(2)),
                claimArguments(dueBefore, instance, healBefore, now, tasks, limit));
        if (keysByTask.isEmpty()) {
            return Claim.NONE;
        }
        List<Object> arguments = new ArrayList<>(2 * limit + tasks.size() + 4);
        List<String> byKey = new ArrayList<>(keysByTask.size());
        keysByTask.forEach((task, keys) -> {
            byKey.add("(c.task = ? AND c.timeout_key IN (" + String.join(", ", Collections.nCopies(keys.size(), "?"))
                    + "))");
            arguments.add(task);
            arguments.addAll(keys);
        });
        Collections.addAll(arguments, claimArguments(dueBefore, instance, healBefore, now, tasks));
        String lock = "SELECT " + Rows.columns("c") + " FROM " + table + " c WHERE (" + String.join(" OR ", byKey)
                + ") AND " + claimable("c", tasks.size()) + " FOR UPDATE SKIP LOCKED";
        // Found rows that a run locked meanwhile are not taken; as found, they still tell that more is due.
        int found = keysByTask.values().stream().mapToInt(List::size).sum();
        return new Claim(hold(instance, bounded.query(lock, Rows.PENDING, arguments.toArray())), found >= limit);
    }
}
