package io.wheeltimer.testsupport.mariadb;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The machine's MariaDB programs that {@link MariaDbServer} runs, the server and the tool that creates its
 * system tables, and whether they must be told to run as root.
 */
final class MariaDbPrograms {

    /** Where Debian and most distributions put the server and the tool that creates its system tables. */
    private static final List<String> SERVER_LOCATIONS =
            List.of("/usr/sbin/mariadbd", "/usr/bin/mariadbd", "/usr/sbin/mysqld", "/usr/bin/mysqld");

    private static final List<String> INSTALL_DB_LOCATIONS = List.of(
            "/usr/bin/mariadb-install-db",
            "/usr/sbin/mariadb-install-db",
            "/usr/bin/mysql_install_db",
            "/usr/sbin/mysql_install_db");

    private MariaDbPrograms() {}

    /** The server, {@code mariadbd} (or the {@code mysqld} of older packages). */
    static Path server() {
        return find("mariadbd", SERVER_LOCATIONS);
    }

    /** The tool that creates the system tables, {@code mariadb-install-db}. */
    static Path installDb() {
        return find("mariadb-install-db", INSTALL_DB_LOCATIONS);
    }

    /** Whether this JVM runs as root: the server then needs {@code --user=root}. */
    static boolean isRoot() throws IOException {
        Path probe = Files.createTempFile("wheel-timer-uid-", ".probe");
        try {
            return (Integer) Files.getAttribute(probe, "unix:uid") == 0;
        } finally {
            Files.delete(probe);
        }
    }

    /** The program {@code name} at the first of {@code locations} that exists, or on the {@code PATH}. */
    private static Path find(String name, List<String> locations) {
        List<Path> candidates = new ArrayList<>();
        locations.forEach(location -> candidates.add(Path.of(location)));
        String path = System.getenv("PATH");
        if (path != null) {
            for (String dir : path.split(":")) {
                if (!dir.isEmpty()) {
                    candidates.add(Path.of(dir, name));
                }
            }
        }
        return candidates.stream()
                .filter(Files::isExecutable)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("MariaDbServer needs MariaDB's " + name + ", which is at "
                        + "none of " + locations + " nor on the PATH. Install Debian's mariadb-server package "
                        + "(wheel-timer-test-support/src/main/sh/ensure-mariadb.sh does, as root)."));
    }
}
