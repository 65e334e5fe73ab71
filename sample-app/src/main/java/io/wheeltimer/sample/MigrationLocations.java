package io.wheeltimer.sample;

import java.sql.DatabaseMetaData;
import java.util.Arrays;
import java.util.List;
import javax.sql.DataSource;
import org.flywaydb.core.api.Location;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.springframework.boot.flyway.autoconfigure.FlywayConfigurationCustomizer;
import org.springframework.jdbc.support.JdbcUtils;
import org.springframework.jdbc.support.MetaDataAccessException;
import org.springframework.stereotype.Component;

/**
 * Which of the sample's two migration sets Flyway runs: {@value #DEFAULT} on H2 and PostgreSQL, whose SQL
 * is alike (Boot's default location, as before MariaDB came), and {@value #MARIADB} on MariaDB, the same
 * schema written for it, version for version. A location set in {@code spring.flyway.locations} is left
 * as it is.
 *
 * <p>Not Boot's {@code {vendor}} placeholder: it would need a folder per vendor, H2's and PostgreSQL's
 * holding the same files twice. And not a MariaDB folder inside {@value #DEFAULT}: Flyway reads a
 * location's subfolders too.
 */
@Component
class MigrationLocations implements FlywayConfigurationCustomizer {

    static final String DEFAULT = "classpath:db/migration";
    static final String MARIADB = "classpath:db/mariadb";

    @Override
    public void customize(FluentConfiguration configuration) {
        boolean defaultLocations = Arrays.stream(configuration.getLocations())
                .map(Location::getDescriptor)
                .toList()
                .equals(List.of(DEFAULT));
        if (defaultLocations && isMariaDb(configuration.getDataSource())) {
            configuration.locations(MARIADB);
        }
    }

    private static boolean isMariaDb(DataSource dataSource) {
        try {
            String product = JdbcUtils.extractDatabaseMetaData(dataSource, DatabaseMetaData::getDatabaseProductName);
            return "MariaDB".equalsIgnoreCase(product);
        } catch (MetaDataAccessException e) {
            return false; // Flyway's own connection then says what is wrong
        }
    }
}
