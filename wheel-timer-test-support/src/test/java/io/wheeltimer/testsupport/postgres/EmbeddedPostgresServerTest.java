package io.wheeltimer.testsupport.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.wheeltimer.testsupport.ThrowawayServerContract;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class EmbeddedPostgresServerTest extends ThrowawayServerContract<EmbeddedPostgresServer> {

    @Override
    protected EmbeddedPostgresServer start() {
        return EmbeddedPostgresServer.start();
    }

    @Override
    protected Path directory(EmbeddedPostgresServer server) {
        return server.directory();
    }

    @Override
    protected String createOrdersTable() {
        return "CREATE TABLE orders (id int PRIMARY KEY, status text NOT NULL)";
    }

    @Override
    protected String ordersInOneLine() {
        return "SELECT string_agg(id || '=' || status, ',' ORDER BY id) FROM orders";
    }

    @Override
    protected String currentDatabase() {
        return "SELECT current_database()";
    }

    @Override
    protected void assertRefusedWhileStopped(EmbeddedPostgresServer server, int port) {
        assertThatThrownBy(() -> server.dataSource("shop").getConnection())
                .isInstanceOf(SQLException.class)
                .hasMessageContaining(String.valueOf(port));
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

    private static String setting(Connection connection, String name) throws SQLException {
        return query(connection, "SELECT current_setting('" + name + "')");
    }
}
