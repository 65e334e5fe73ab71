package io.wheeltimer.testsupport.postgres;

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

class EmbeddedPostgresServerTest {

    private static EmbeddedPostgresServer shared;

    @BeforeAll
    static void startShared() {
        shared = EmbeddedPostgresServer.start();
    }

    @AfterAll
    static void closeShared() {
        if (shared != null) {
            shared.close();
        }
    }

    @Test
    void keepsItsDataAndPortAcrossStopAndStartAgainAndDeletesItAllOnClose() throws Exception {
        EmbeddedPostgresServer server = EmbeddedPostgresServer.start();
        Path directory = server.directory();
        int port = server.port();
        try (Connection connection = server.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE orders (id int PRIMARY KEY, status text NOT NULL)");
            statement.execute("INSERT INTO orders VALUES (1, 'PAID'), (2, 'CANCELLED')");
        }

        server.stop();
        assertThat(server.isRunning()).isFalse();
        assertThatThrownBy(() -> server.dataSource().getConnection())
                .isInstanceOf(SQLException.class)
                .hasMessageContaining(String.valueOf(port));
        assertThatThrownBy(server::stop)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already stopped");

        server.startAgain();
        assertThat(server.isRunning()).isTrue();
        assertThat(server.port()).isEqualTo(port);
        assertThat(query(server.dataSource(), "SELECT string_agg(id || '=' || status, ',' ORDER BY id) FROM orders"))
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
    void servesTheConfiguredClusterThroughItsJdbcUrl() throws Exception {
        assertThat(shared.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:" + shared.port() + "/postgres");
        assertThat(shared.username()).isEqualTo("test");
        try (Connection connection = DriverManager.getConnection(shared.jdbcUrl(), shared.username(), "")) {
            assertThat(setting(connection, "server_version_num"))
                    .satisfies(v -> assertThat(Integer.parseInt(v)).isGreaterThanOrEqualTo(160000));
            assertThat(Integer.parseInt(setting(connection, "max_connections"))).isGreaterThanOrEqualTo(200);
            assertThat(setting(connection, "server_encoding")).isEqualTo("UTF8");
            assertThat(setting(connection, "fsync")).isEqualTo("off");
            assertThat(setting(connection, "synchronous_commit")).isEqualTo("off");
            assertThat(setting(connection, "listen_addresses")).isEqualTo("127.0.0.1");
            assertThat(setting(connection, "unix_socket_directories"))
                    .startsWith(shared.directory().toString());
        }
    }

    @Test
    void flushingCommitsKeepsPostgresDurabilityDefaults() throws Exception {
        try (EmbeddedPostgresServer server = EmbeddedPostgresServer.startFlushingCommits();
                Connection connection = server.dataSource().getConnection()) {
            assertThat(setting(connection, "fsync")).isEqualTo("on");
            assertThat(setting(connection, "synchronous_commit")).isEqualTo("on");
            assertThat(setting(connection, "full_page_writes")).isEqualTo("on");
            assertThat(setting(connection, "max_connections"))
                    .isEqualTo(String.valueOf(EmbeddedPostgresServer.MAX_CONNECTIONS));
        }
    }

    @Test
    void runsTheBinariesFromTheJarAsAnUnprivilegedUser() throws Exception {
        Path probe = Files.createTempFile("uid-", ".probe");
        boolean root;
        try {
            root = (Integer) Files.getAttribute(probe, "unix:uid") == 0;
        } finally {
            Files.delete(probe);
        }
        DataSource dataSource = shared.dataSource();
        String bindir = query(dataSource, "SELECT setting FROM pg_config WHERE name = 'BINDIR'");
        assertThat(Path.of(bindir)).startsWith(Path.of(System.getProperty("java.io.tmpdir")));
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE whoami (name text)");
            statement.execute("COPY whoami FROM PROGRAM 'id -un'");
        }
        assertThat(query(dataSource, "SELECT name FROM whoami"))
                .isEqualTo(root ? "nobody" : System.getProperty("user.name"));
    }

    @Test
    void givesEachCreatedDatabaseItsOwnUrl() throws Exception {
        String url = shared.createDatabase("orders_one");
        assertThat(url).isEqualTo(shared.jdbcUrl("orders_one")).endsWith("/orders_one");
        try (Connection connection = DriverManager.getConnection(url, shared.username(), "")) {
            assertThat(connection.getCatalog()).isEqualTo("orders_one");
        }
        assertThat(query(shared.dataSource("orders_one"), "SELECT current_database()"))
                .isEqualTo("orders_one");
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

    private static String setting(Connection connection, String name) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT current_setting('" + name + "')")) {
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
