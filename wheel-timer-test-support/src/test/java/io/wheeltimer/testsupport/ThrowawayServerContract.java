package io.wheeltimer.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import org.junit.jupiter.api.TestInstance;

/**
 * What every {@link ThrowawayServer} does, whatever its database: a subclass starts its own and says how
 * its SQL differs. One server is shared by the tests of a class ({@link #shared}); the life-cycle test
 * starts one of its own.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class ThrowawayServerContract<S extends ThrowawayServer> {

    protected S shared;

    /** Starts a new server. */
    protected abstract S start();

    /** The directory holding its data, which its close deletes. */
    protected abstract Path directory(S server);

    /** Creates table {@code orders (id, status)} in this database's own dialect. */
    protected abstract String createOrdersTable();

    /** A query of one text: each row of {@code orders} as {@code id=status}, by id, joined by commas. */
    protected abstract String ordersInOneLine();

    /** A query of the name of the database connected to. */
    protected abstract String currentDatabase();

    /** Asserts how a connection to the stopped {@code server} (on {@code port}) fails. */
    protected void assertRefusedWhileStopped(S server, int port) {
        assertThatThrownBy(() -> server.dataSource("shop").getConnection()).isInstanceOf(SQLException.class);
    }

    @BeforeAll
    void startShared() {
        shared = start();
    }

    @AfterAll
    void closeShared() {
        if (shared != null) {
            shared.close();
        }
    }

    @Test
    void keepsItsDataAndPortAcrossStopAndStartAgainAndDeletesItAllOnClose() throws Exception {
        S server = start();
        Path directory = directory(server);
        int port = server.port();
        server.createDatabase("shop");
        try (Connection connection = server.dataSource("shop").getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute(createOrdersTable());
            statement.execute("INSERT INTO orders VALUES (1, 'PAID'), (2, 'CANCELLED')");
        }

        server.stop();
        assertThat(server.isRunning()).isFalse();
        assertRefusedWhileStopped(server, port);
        assertThatThrownBy(server::stop)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already stopped");

        server.startAgain();
        assertThat(server.isRunning()).isTrue();
        assertThat(server.port()).isEqualTo(port);
        assertThat(query(server.dataSource("shop"), ordersInOneLine())).isEqualTo("1=PAID,2=CANCELLED");

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
    void givesEachCreatedDatabaseItsOwnUrl() throws Exception {
        String url = shared.createDatabase("orders_one");
        assertThat(url).isEqualTo(shared.jdbcUrl("orders_one")).endsWith("/orders_one");
        try (Connection connection = DriverManager.getConnection(url, shared.username(), "")) {
            assertThat(connection.getCatalog()).isEqualTo("orders_one");
        }
        assertThat(query(shared.dataSource("orders_one"), currentDatabase())).isEqualTo("orders_one");
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

    /** The first column of the first row {@code sql} returns. */
    protected static String query(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getString(1);
        }
    }

    /** The first column of the first row {@code sql} returns, on a connection of its own. */
    protected static String query(DataSource dataSource, String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            return query(connection, sql);
        }
    }
}
