package io.wheeltimer.jdbc.internal.table;

import java.sql.ResultSetMetaData;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import org.springframework.jdbc.BadSqlGrammarException;

/** Whether the two tables have every column this version reads and writes; what adds them when not. */
final class TableShape {

    private TableShape() {}

    /**
     * What is wrong with the timeouts table, else with the instances table, of {@code dialect} (naming
     * the table, what is missing and the script that adds it); empty when both are as this version
     * needs them.
     *
     * @throws org.springframework.dao.DataAccessResourceFailureException if the database cannot be reached
     */
    static Optional<ShapeProblem> check(Dialect dialect) {
        return checkColumns(dialect, dialect.table, Rows.TIMEOUT_COLUMNS)
                .or(() -> checkColumns(dialect, dialect.instances, Rows.INSTANCE_COLUMNS));
    }

    private static Optional<ShapeProblem> checkColumns(Dialect dialect, String table, List<String> expected) {
        Set<String> found;
        try {
            found = dialect.bounded.query("SELECT * FROM " + table + " WHERE 1 = 0", rs -> {
                Set<String> names = new HashSet<>();
                ResultSetMetaData meta = rs.getMetaData();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    names.add(meta.getColumnLabel(i).toLowerCase(Locale.ROOT));
                }
                return names;
            });
        } catch (BadSqlGrammarException e) {
            return Optional.of(new ShapeProblem(
                    table,
                    List.of(),
                    "does not exist ("
                            + e.getSQLException()
                                    .getMessage()
                                    .lines()
                                    .findFirst()
                                    .orElse("") + ")",
                    "Create it with io/wheeltimer/jdbc/schema-" + dialect.scripts() + ".sql from wheel-timer-jdbc (with"
                            + " Spring Boot: wheel-timer.durable.initialize-schema=always), or with your migrations",
                    e));
        }
        List<String> missing = expected.stream().filter(c -> !found.contains(c)).toList();
        if (missing.size() == expected.size()) {
            return Optional.of(new ShapeProblem(
                    table,
                    missing,
                    "lacks the columns " + missing + ": it is another table of that name",
                    "Name another table (with Spring Boot: wheel-timer.durable.table-name)",
                    null));
        }
        if (!missing.isEmpty()) {
            return Optional.of(new ShapeProblem(
                    table,
                    missing,
                    "lacks the columns " + missing + ": an earlier version made it",
                    "Run io/wheeltimer/jdbc/upgrade-" + dialect.scripts() + ".sql from wheel-timer-jdbc on it, or add"
                            + " it to your migrations",
                    null));
        }
        return Optional.empty();
    }
}
