package io.wheeltimer.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.wheeltimer.testsupport.postgres.EmbeddedPostgresServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/** The databases every behaviour is tested against, each shared by the whole test JVM. */
enum TestDatabase {
    H2("schema-h2.sql") {
        @Override
        DataSource createDataSource() {
            // A lock wait long enough for a handler that holds a row while a cancel waits for it.
            return pool("jdbc:h2:mem:durable;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=30000", "sa", 20);
        }
    },

    POSTGRESQL("schema-postgresql.sql") {
        @Override
        DataSource createDataSource() {
            EmbeddedPostgresServer server = sharedPostgres();
            return pool(server.createDatabase(DATABASE), server.username(), 20);
        }
    };

    /** The database the PostgreSQL tests share on {@link #sharedPostgres()}. */
    static final String DATABASE = "durable";

    private static final AtomicInteger POOLS = new AtomicInteger();
    private static EmbeddedPostgresServer postgres;

    /** One PostgreSQL server for the whole test JVM (tests that stop theirs start one of their own). */
    static synchronized EmbeddedPostgresServer sharedPostgres() {
        if (postgres == null) {
            postgres = EmbeddedPostgresServer.start();
        }
        return postgres;
    }

    private final String script;
    private DataSource dataSource;

    TestDatabase(String script) {
        this.script = script;
    }

    abstract DataSource createDataSource();

    /** The pool of this database shared by the tests. */
    synchronized DataSource dataSource() {
        if (dataSource == null) {
            dataSource = createDataSource();
        }
        return dataSource;
    }

    /** The schema script shipped in the jar, for this database. */
    String schemaScript() {
        try {
            return new ClassPathResource("io/wheeltimer/jdbc/" + script).getContentAsString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Creates the timeouts table {@code table} (and its instances table) with the shipped script. */
    void createTables(DataSource target, String table) {
        runScript(target, "schema", table);
    }

    /** The name the shipped scripts of this database carry: {@code schema-NAME.sql}, {@code upgrade-NAME.sql}. */
    String scripts() {
        return script.substring("schema-".length(), script.length() - ".sql".length());
    }

    /** Runs the shipped script {@code kind-NAME.sql} (schema, upgrade) on {@code table}. */
    void runScript(DataSource target, String kind, String table) {
        String sql;
        try {
            sql = new ClassPathResource("io/wheeltimer/jdbc/" + kind + "-" + scripts() + ".sql")
                    .getContentAsString(StandardCharsets.UTF_8)
                    .replace(JdbcDurableTimer.DEFAULT_TABLE_NAME, table);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        new ResourceDatabasePopulator(new ByteArrayResource(sql.getBytes(StandardCharsets.UTF_8))).execute(target);
    }

    static HikariDataSource pool(String url, String user, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(2_000);
        config.setPoolName("test-pool-" + POOLS.incrementAndGet());
        return new HikariDataSource(config);
    }
}
