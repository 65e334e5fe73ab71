package io.wheeltimer.jdbc;

import java.util.Optional;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * MariaDB 10.6+ through MariaDB Connector/J: the {@linkplain MySqlDialect MySQL dialect}'s statements,
 * which MariaDB runs too, but for the delete, which is one {@code DELETE ... RETURNING}.
 */
final class MariaDbDialect extends MySqlDialect {

    private final String deletePending;

    MariaDbDialect(JdbcTemplate calls, JdbcTemplate bounded, String table) {
        super(calls, bounded, table);
        this.deletePending =
                "DELETE FROM " + table + " WHERE task = ? AND timeout_key = ? AND failed_at IS NULL RETURNING version";
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
}
