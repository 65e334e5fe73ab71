package io.wheeltimer.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.wheeltimer.testsupport.mariadb.MariaDbServer;
import io.wheeltimer.testsupport.postgres.EmbeddedPostgresServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/** The databases every behaviour is tested against, each shared by the whole test JVM. */
public enum TestDatabase {
    H2("schema-h2.sql") {
        @Override
        String createDatabase() {
            // A lock wait long enough for a handler that holds a row while a cancel waits for it.
            return "jdbc:h2:mem:durable;DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=30000";
        }

        @Override
        String username() {
            return "sa";
        }
    },

    POSTGRESQL("schema-postgresql.sql") {
        @Override
        String createDatabase() {
            return sharedPostgres().createDatabase(DATABASE);
        }

        @Override
        String username() {
            return sharedPostgres().username();
        }
    },

    /** MariaDB through MariaDB Connector/J, which names it "MariaDB": the MariaDB dialect. */
    MARIADB("schema-mariadb.sql") {
        @Override
        String createDatabase() {
            return sharedMariaDb().createDatabase(DATABASE);
        }

        @Override
        String username() {
            return sharedMariaDb().username();
        }
    },

    /**
     * The same MariaDB server through MySQL Connector/J, which names it "MySQL": the MySQL dialect and
     * script, as an application on MySQL runs them. No MySQL server is tested here.
     */
    MYSQL("schema-mysql.sql") {
        @Override
        String createDatabase() {
            MariaDbServer server = sharedMariaDb();
            server.createDatabase(MYSQL_DATABASE);
            return mysqlJdbcUrl(server, MYSQL_DATABASE);
        }

        @Override
        String username() {
            return sharedMariaDb().username();
        }
    };

    /** The database the PostgreSQL tests share on {@link #sharedPostgres()}, and the MariaDB tests on {@link #sharedMariaDb()}. */
    static final String DATABASE = "durable";

    /** The database the MySQL Connector/J tests share on {@link #sharedMariaDb()}. */
    static final String MYSQL_DATABASE = "durable_mysql";

    private static final AtomicInteger POOLS = new AtomicInteger();
    private static EmbeddedPostgresServer postgres;
    private static MariaDbServer mariaDb;

    /** One PostgreSQL server for the whole test JVM (tests that stop theirs start one of their own). */
    static synchronized EmbeddedPostgresServer sharedPostgres() {
        if (postgres == null) {
            postgres = EmbeddedPostgresServer.start();
        }
        return postgres;
    }

    /** One MariaDB server for the whole test JVM, for both drivers (tests that stop theirs start one of their own). */
    public static synchronized MariaDbServer sharedMariaDb() {
        if (mariaDb == null) {
            mariaDb = MariaDbServer.start();
        }
        return mariaDb;
    }

    /** The MySQL Connector/J URL of {@code database} on {@code server}. */
    static String mysqlJdbcUrl(MariaDbServer server, String database) {
        return "jdbc:mysql://" + server.host() + ":" + server.port() + "/" + database;
    }

    private final String script;
    private String jdbcUrl;
    private DataSource dataSource;

    TestDatabase(String script) {
        this.script = script;
    }

    /** Creates the database the tests share (on a server started for the JVM) and returns its JDBC URL. */
    abstract String createDatabase();

    /** The user the tests connect as, with no password. */
    abstract String username();

    /**
     * The system property naming the databases to test, comma-separated (for example
     * {@code H2,POSTGRESQL}); all of them when it is not set. The build's other passes (another Spring
     * Boot version, another JDK) test the dialects on fewer databases: what differs there is not the
     * database.
     */
    static final String DATABASES_PROPERTY = "wheeltimer.test.databases";

    /** The databases {@link #DATABASES_PROPERTY} names, in declaration order; all when it is not set. */
    public static List<TestDatabase> tested() {
        String chosen = System.getProperty(DATABASES_PROPERTY, "").strip();
        if (chosen.isEmpty()) {
            return List.of(values());
        }
        List<TestDatabase> named = Arrays.stream(chosen.split(","))
                .map(name -> valueOf(name.strip().toUpperCase(java.util.Locale.ROOT)))
                .toList();
        return Arrays.stream(values()).filter(named::contains).toList();
    }

    /** The {@link #tested()} databases that run as servers of their own (all but H2): a crash or an outage can stop them. */
    static List<TestDatabase> testedServers() {
        return tested().stream().filter(database -> database != H2).toList();
    }

    /** The JDBC URL of the database the tests share, created at the first call. */
    synchronized String jdbcUrl() {
        if (jdbcUrl == null) {
            jdbcUrl = createDatabase();
        }
        return jdbcUrl;
    }

    /** The pool of this database shared by the tests. */
    public synchronized DataSource dataSource() {
        if (dataSource == null) {
            dataSource = pool(jdbcUrl(), username(), 20);
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
    public String scripts() {
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
