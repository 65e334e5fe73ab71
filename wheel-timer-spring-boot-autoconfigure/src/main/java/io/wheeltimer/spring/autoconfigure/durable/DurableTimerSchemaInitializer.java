package io.wheeltimer.spring.autoconfigure.durable;

import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;
import javax.sql.DataSource;
import org.springframework.boot.jdbc.init.DataSourceScriptDatabaseInitializer;
import org.springframework.boot.jdbc.init.PlatformPlaceholderDatabaseDriverResolver;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.DatabaseInitializationSettings;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.DefaultResourceLoader;
import org.springframework.core.io.Resource;
import org.springframework.util.StreamUtils;

/**
 * Creates the durable timeouts' tables per {@code wheel-timer.durable.initialize-schema}, as Spring
 * Session JDBC and Spring Batch create theirs: the script shipped for the database's platform
 * ({@code io/wheeltimer/jdbc/schema-h2.sql}, {@code schema-postgresql.sql}, {@code schema-mariadb.sql}
 * or {@code schema-mysql.sql}; Boot names the platform after the product the driver reports, so
 * MySQL Connector/J on MariaDB takes the MySQL script, as the library takes the MySQL dialect), with the table name
 * replaced by {@code wheel-timer.durable.table-name}. The scripts create only what is missing, so
 * {@code always} is safe on every start. Boot orders the beans that depend on database
 * initialization, the durable timer among them, after this one (and after Flyway or Liquibase).
 */
public class DurableTimerSchemaInitializer extends DataSourceScriptDatabaseInitializer {

    /** The script per platform; {@code @@platform@@} is Boot's name of the database. */
    static final String SCHEMA_LOCATION = "classpath:io/wheeltimer/jdbc/schema-@@platform@@.sql";

    /** The scripts' table name and what follows it in one identifier (a suffix such as {@code _instances}). */
    private static final Pattern SCRIPT_NAME = Pattern.compile("\\b" + JdbcDurableTimer.DEFAULT_TABLE_NAME + "(\\w*)");

    private final String tableName;
    private final DatabaseInitializationMode mode;
    private final String location;

    /**
     * @param tableName the table that replaces {@code wheel_timer_timeouts}
     * @param mode when to run the script
     */
    public DurableTimerSchemaInitializer(DataSource dataSource, String tableName, DatabaseInitializationMode mode) {
        this(dataSource, tableName, mode, schemaLocation(dataSource, mode));
    }

    private DurableTimerSchemaInitializer(
            DataSource dataSource, String tableName, DatabaseInitializationMode mode, String location) {
        super(dataSource, settings(location, mode));
        this.tableName = DurableTimerSettings.tableName(tableName);
        this.mode = mode;
        this.location = location;
    }

    private static String schemaLocation(DataSource dataSource, DatabaseInitializationMode mode) {
        if (mode == DatabaseInitializationMode.NEVER) {
            return SCHEMA_LOCATION; // never read: resolving it would open a connection for nothing
        }
        return new PlatformPlaceholderDatabaseDriverResolver()
                .resolveAll(dataSource, SCHEMA_LOCATION)
                .get(0);
    }

    private static DatabaseInitializationSettings settings(String location, DatabaseInitializationMode mode) {
        DatabaseInitializationSettings settings = new DatabaseInitializationSettings();
        settings.setSchemaLocations(List.of(location));
        settings.setMode(mode);
        settings.setEncoding(StandardCharsets.UTF_8);
        return settings;
    }

    /**
     * Fails, naming the platform and what to do, when the tables should be created on a database for
     * which no script is shipped, rather than with Boot's bare "no schema scripts found".
     */
    @Override
    public boolean initializeDatabase() {
        if (mode == DatabaseInitializationMode.NEVER) {
            return false; // without reading the script location, left unresolved
        }
        boolean applies = mode == DatabaseInitializationMode.ALWAYS
                || mode == DatabaseInitializationMode.EMBEDDED && isEmbeddedDatabase();
        if (applies
                && !new DefaultResourceLoader(getClass().getClassLoader())
                        .getResource(location)
                        .exists()) {
            throw new IllegalStateException(
                    "wheel-timer.durable.initialize-schema is " + mode.name().toLowerCase()
                            + " but there is no script for this database (" + location + "): the tables are created for"
                            + " H2, PostgreSQL, MariaDB and MySQL only; create them yourself, after the PostgreSQL script, and set"
                            + " wheel-timer.durable.initialize-schema=never");
        }
        return super.initializeDatabase();
    }

    @Override
    protected void runScripts(Scripts scripts) {
        Charset encoding = scripts.getEncoding() != null ? scripts.getEncoding() : StandardCharsets.UTF_8;
        List<Resource> named = StreamSupport.stream(scripts.spliterator(), false)
                .map(script -> withTableName(script, encoding))
                .toList();
        super.runScripts(new Scripts(named)
                .continueOnError(scripts.isContinueOnError())
                .separator(scripts.getSeparator())
                .encoding(encoding));
    }

    private Resource withTableName(Resource script, Charset encoding) {
        String sql;
        try {
            sql = StreamUtils.copyToString(script.getInputStream(), encoding);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read " + script, e);
        }
        return new ByteArrayResource(replaceTableName(sql, tableName).getBytes(encoding), script.getDescription());
    }

    /**
     * The script with its table name replaced, in the names made from it too (the lease table
     * {@code wheel_timer_timeouts_instances}, the index {@code wheel_timer_timeouts_deadline_idx}).
     */
    static String replaceTableName(String sql, String tableName) {
        return SCRIPT_NAME.matcher(sql).replaceAll(Matcher.quoteReplacement(tableName) + "$1");
    }
}
