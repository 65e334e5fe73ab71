package io.wheeltimer.jdbc.internal.table;

import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * MariaDB 10.6+ through MariaDB Connector/J: the {@linkplain MySqlDialect MySQL dialect}'s statements,
 * which MariaDB runs too, but for the deletes, each one {@code DELETE ... RETURNING}.
 */
final class MariaDbDialect extends MySqlDialect {

    private final String deletePending;
    private final String deleteForFiring;

    MariaDbDialect(JdbcTemplate calls, JdbcTemplate bounded, String table) {
        super(calls, bounded, table);
        this.deletePending =
                "DELETE FROM " + table + " WHERE task = ? AND timeout_key = ? AND failed_at IS NULL RETURNING version";
        this.deleteForFiring = "DELETE FROM " + table + heldAndDue() + " RETURNING data, trace_context";
    }

    @Override
    String scripts() {
        return "mariadb";
    }

    /** One statement: it waits for a run that holds the row, then deletes what that run left, if anything. */
    @Override
    Optional<Long> deletePending(String task, String key) {
        return calls.queryForList(deletePending, Long.class, task, key).stream().findFirst();
    }

    /** One statement, where MySQL needs a locking read first. */
    @Override
    Optional<StoredData> deleteForFiring(String task, String key, long version, String holder, Long judgedNowMillis) {
        return heldAndDueData(deleteForFiring, task, key, version, holder, judgedNowMillis);
    }
}
