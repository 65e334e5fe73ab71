package io.wheeltimer.testsupport.mariadb;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.testsupport.ThrowawayServerContract;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class MariaDbServerTest extends ThrowawayServerContract<MariaDbServer> {

    @Override
    protected MariaDbServer start() {
        return MariaDbServer.start();
    }

    @Override
    protected Path directory(MariaDbServer server) {
        return server.directory();
    }

    @Override
    protected String createOrdersTable() {
        return "CREATE TABLE orders (id INT PRIMARY KEY, status VARCHAR(20) NOT NULL) ENGINE=InnoDB";
    }

    @Override
    protected String ordersInOneLine() {
        return "SELECT GROUP_CONCAT(CONCAT(id, '=', status) ORDER BY id SEPARATOR ',') FROM orders";
    }

    @Override
    protected String currentDatabase() {
        return "SELECT DATABASE()";
    }

    @Test
    void servesAServerOfItsOwnOnLoopbackThroughItsJdbcUrl() throws Exception {
        assertThat(shared.jdbcUrl()).isEqualTo("jdbc:mariadb://127.0.0.1:" + shared.port() + "/mysql");
        assertThat(shared.host()).isEqualTo("127.0.0.1");
        assertThat(shared.username()).isEqualTo("test");
        try (Connection connection = DriverManager.getConnection(shared.jdbcUrl(), shared.username(), "")) {
            assertThat(connection.getMetaData().getDatabaseProductName()).isEqualTo("MariaDB");
            assertThat(connection.getMetaData().getDatabaseMajorVersion()).isGreaterThanOrEqualTo(10);
            assertThat(variable(connection, "version")).containsIgnoringCase("MariaDB");
            assertThat(Integer.parseInt(variable(connection, "max_connections")))
                    .isEqualTo(MariaDbServer.MAX_CONNECTIONS);
            assertThat(variable(connection, "bind_address")).isEqualTo("127.0.0.1");
            assertThat(variable(connection, "innodb_flush_log_at_trx_commit")).isEqualTo("0");
            // MariaDB's compiled default, not Debian's configuration: tables must choose their own.
            assertThat(variable(connection, "character_set_server")).isEqualTo("latin1");
            assertThat(Path.of(variable(connection, "datadir"))).startsWith(shared.directory());
            assertThat(Path.of(variable(connection, "socket"))).startsWith(shared.directory());
        }
    }

    @Test
    void runsTheMachinesMariadbdAsTheJvmsOwnUser() throws Exception {
        long pid;
        try (Connection connection = shared.dataSource().getConnection()) {
            pid = Long.parseLong(
                    Files.readString(Path.of(variable(connection, "pid_file"))).trim());
        }
        ProcessHandle.Info info = ProcessHandle.of(pid).orElseThrow().info();
        assertThat(info.command())
                .hasValueSatisfying(
                        c -> assertThat(Path.of(c).getFileName().toString()).isIn("mariadbd", "mysqld"));
        assertThat(info.user()).hasValue(System.getProperty("user.name"));
        assertThat(ProcessHandle.of(pid).orElseThrow().parent().map(ProcessHandle::pid))
                .hasValue(ProcessHandle.current().pid());
    }

    private static String variable(Connection connection, String name) throws SQLException {
        return query(connection, "SELECT @@GLOBAL." + name);
    }
}
