package io.wheeltimer.testsupport.mariadb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class MariaDbServerTest {

    private static MariaDbServer shared;

    @BeforeAll
    static void startShared() {
        shared = MariaDbServer.start();
    }

    @AfterAll
    static void closeShared() {
        if (shared != null) {
            shared.close();
        }
    }

    @Test
    void keepsItsDataAndPortAcrossStopAndStartAgainAndDeletesItAllOnClose() throws Exception {
        MariaDbServer server = MariaDbServer.start();
        Path directory = server.directory();
        int port = server.port();
        server.createDatabase("shop");
        try (Connection connection = server.dataSource("shop").getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE orders (id INT PRIMARY KEY, status VARCHAR(20) NOT NULL) ENGINE=InnoDB");
            statement.execute("INSERT INTO orders VALUES (1, 'PAID'), (2, 'CANCELLED')");
        }

        server.stop();
        assertThat(server.isRunning()).isFalse();
        assertThatThrownBy(() -> server.dataSource("shop").getConnection()).isInstanceOf(SQLException.class);
        assertThatThrownBy(server::stop)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already stopped");

        server.startAgain();
        assertThat(server.isRunning()).isTrue();
        assertThat(server.port()).isEqualTo(port);
        assertThat(query(
                        server.dataSource("shop"),
                        "SELECT GROUP_CONCAT(CONCAT(id, '=', status) ORDER BY id SEPARATOR ',') FROM orders"))
                .isEqualTo("1=PAID,2=CANCELLED");

        server.close();
        assertThat(server.isRunning()).isFalse();
        assertThat(directory).doesNotExist();
        assertThatThrownBy(() -> server.dataSource().getConnection()).isInstanceOf(SQLException.class);
        server.close(); // a second close does nothing
        assertThatThrownBy(server::startAgain)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
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

    @Test
    void givesEachCreatedDatabaseItsOwnUrl() throws Exception {
        String url = shared.createDatabase("orders_one");
        assertThat(url).isEqualTo(shared.jdbcUrl("orders_one")).endsWith("/orders_one");
        try (Connection connection = DriverManager.getConnection(url, shared.username(), "")) {
            assertThat(connection.getCatalog()).isEqualTo("orders_one");
        }
        assertThat(query(shared.dataSource("orders_one"), "SELECT DATABASE()")).isEqualTo("orders_one");
    }

    @Test
    void rejectsADatabaseNameThatNeedsQuoting() {
        assertThatThrownBy(() -> shared.createDatabase("Orders; DROP"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'Orders; DROP'")
                .hasMessageContaining("lower-case letters, digits and _");
    }

    @Test
    void refusesToStartAgainWhileRunning() {
        assertThatThrownBy(shared::startAgain)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already running");
    }

    private static String variable(Connection connection, String name) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT @@GLOBAL." + name)) {
            result.next();
            return result.getString(1);
        }
    }

    private static String query(DataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getString(1);
        }
    }
}
