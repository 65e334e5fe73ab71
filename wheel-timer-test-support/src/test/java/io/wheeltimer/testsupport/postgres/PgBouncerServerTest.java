package io.wheeltimer.testsupport.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PgBouncerServerTest {

    @Test
    void poolsByTransactionClosesServerSessionsAfterTheirLifetimeAndLeavesNothingBehind() throws Exception {
        Path directory;
        List<ProcessHandle> processes = new ArrayList<>();
        try (EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start();
                PgBouncerServer pooler = PgBouncerServer.start(postgres)) {
            directory = pooler.directory();
            ProcessHandle process = pooler.process().orElseThrow();
            processes.add(process);
            processes.addAll(process.descendants().toList());
            String url = pooler.jdbcUrl(EmbeddedPostgresServer.DEFAULT_DATABASE);
            assertThat(url).endsWith("?prepareThreshold=0");
            try (Connection first = DriverManager.getConnection(url, pooler.username(), "")) {
                int session = backend(first);
                // A second client connection, while the first is open, is handed the same idle server session.
                try (Connection second = DriverManager.getConnection(url, pooler.username(), "")) {
                    assertThat(backend(second)).isEqualTo(session);
                }
                // Once the pooler closes that session, the same client connection goes on, on another one.
                long end = System.nanoTime()
                        + PgBouncerServer.SERVER_LIFETIME.multipliedBy(5).toNanos();
                int now = session;
                while (now == session && System.nanoTime() - end < 0) {
                    Thread.sleep(200);
                    now = backend(first);
                }
                assertThat(now).as("the server session after its lifetime").isNotEqualTo(session);
            }
        }

        assertThat(Files.exists(directory)).isFalse();
        assertThat(processes).noneMatch(ProcessHandle::isAlive);
    }

    private static int backend(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT pg_backend_pid()")) {
            result.next();
            return result.getInt(1);
        }
    }
}
