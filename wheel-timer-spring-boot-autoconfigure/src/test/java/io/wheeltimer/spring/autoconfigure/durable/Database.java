package io.wheeltimer.spring.autoconfigure.durable;

import io.wheeltimer.testsupport.mariadb.MariaDbServer;
import io.wheeltimer.testsupport.postgres.EmbeddedPostgresServer;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The databases the Boot tests run against: H2 in memory (embedded, so the tables are created by
 * default) and a real PostgreSQL, one server for the whole test JVM. Each call of
 * {@link #newDatabase()} gives a database of its own, as {@code spring.datasource.*} properties.
 */
enum Database {
    H2 {
        @Override
        List<String> newDatabase() {
            // A lock wait long enough for a handler that holds a row while a cancel waits for it.
            return List.of(
                    "spring.datasource.url=jdbc:h2:mem:boot" + COUNT.incrementAndGet()
                            + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=30000",
                    "spring.datasource.username=sa");
        }
    },
    POSTGRESQL {
        @Override
        List<String> newDatabase() {
            EmbeddedPostgresServer server = server();
            return onServer(server.createDatabase("boot" + COUNT.incrementAndGet()), server.username());
        }
    },
    /** MariaDB through MariaDB Connector/J: the MariaDB dialect and script. */
    MARIADB {
        @Override
        List<String> newDatabase() {
            MariaDbServer server = mariaDb();
            return onServer(server.createDatabase("boot" + COUNT.incrementAndGet()), server.username());
        }
    },
    /** The same MariaDB server through MySQL Connector/J, which names it "MySQL": the MySQL dialect and script. */
    MYSQL {
        @Override
        List<String> newDatabase() {
            MariaDbServer server = mariaDb();
            String name = "boot" + COUNT.incrementAndGet();
            server.createDatabase(name);
            return onServer("jdbc:mysql://" + server.host() + ":" + server.port() + "/" + name, server.username());
        }
    };

    private static final AtomicInteger COUNT = new AtomicInteger();
    private static EmbeddedPostgresServer server;
    private static MariaDbServer mariaDb;

    /** The MariaDB server every test of this JVM shares; closed when the JVM exits. */
    static synchronized MariaDbServer mariaDb() {
        if (mariaDb == null) {
            mariaDb = MariaDbServer.start();
        }
        return mariaDb;
    }

    /** A database on a server of its own: not an embedded database for Boot, so the tables are created only with "always". */
    private static List<String> onServer(String url, String username) {
        return List.of(
                "spring.datasource.url=" + url,
                "spring.datasource.username=" + username,
                "wheel-timer.durable.initialize-schema=always");
    }

    /** The name of the timer's scripts for this database: {@code schema-NAME.sql}. */
    String scripts() {
        return this == H2 ? "h2" : name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The {@code spring.datasource.*} properties (and what else it needs) of a new, empty database. */
    abstract List<String> newDatabase();

    /** The PostgreSQL server every test of this JVM shares; closed when the JVM exits. */
    static synchronized EmbeddedPostgresServer server() {
        if (server == null) {
            server = EmbeddedPostgresServer.start();
        }
        return server;
    }
}
