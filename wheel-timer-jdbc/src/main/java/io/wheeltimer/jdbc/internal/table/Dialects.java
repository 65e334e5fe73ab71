package io.wheeltimer.jdbc.internal.table;

import java.util.Optional;
import org.springframework.jdbc.core.ConnectionCallback;
import org.springframework.jdbc.core.JdbcTemplate;

/** The dialects there are, and which one a database takes: adding a database is one case here. */
final class Dialects {

    /** The databases {@link #of} knows, for error messages. */
    static final String SUPPORTED = "H2, PostgreSQL, MariaDB and MySQL";

    private Dialects() {}

    /**
     * The dialect of the database whose JDBC driver reports {@code productName}, if it is supported.
     * MariaDB Connector/J names MariaDB "MariaDB"; MySQL Connector/J names it "MySQL", and that takes
     * the MySQL dialect, which runs on MariaDB as well.
     */
    static Optional<Dialect> of(String productName, JdbcTemplate calls, JdbcTemplate bounded, String table) {
        return switch (productName) {
            case "H2" -> Optional.of(new H2Dialect(calls, bounded, table));
            case "PostgreSQL" -> Optional.of(new PostgresDialect(calls, bounded, table));
            case "MariaDB" -> Optional.of(new MariaDbDialect(calls, bounded, table));
            case "MySQL" -> Optional.of(new MySqlDialect(calls, bounded, table));
            default -> Optional.empty();
        };
    }

    /**
     * The dialect of the database {@code calls} reaches, asked of the driver once.
     *
     * @throws IllegalStateException if the database is not one of those supported
     */
    static Dialect detect(JdbcTemplate calls, JdbcTemplate bounded, String table) {
        String product =
                calls.execute((ConnectionCallback<String>) c -> c.getMetaData().getDatabaseProductName());
        return of(String.valueOf(product), calls, bounded, table)
                .orElseThrow(() -> new IllegalStateException(
                        "Durable timeouts support " + SUPPORTED + "; the DataSource is " + product));
    }
}
