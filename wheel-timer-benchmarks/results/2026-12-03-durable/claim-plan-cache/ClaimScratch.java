import io.wheeltimer.testsupport.postgres.EmbeddedPostgresServer;
import java.nio.charset.StandardCharsets;
import java.sql.*;
import java.util.*;

public class ClaimScratch {
    static final String T = "wheel_timer_timeouts";
    static String claimSql() {
        String instances = T + "_instances";
        String a = "c";
        String claimable = a + ".due_at <= ? AND " + a + ".failed_at IS NULL AND (" + a + ".holder IS NULL OR (" + a
                + ".holder = ? AND " + a + ".due_at <= ?) OR NOT EXISTS (SELECT 1 FROM " + instances + " i WHERE i.instance_id = " + a
                + ".holder AND i.lease_until > ?)) AND " + a + ".task IN (?)";
        return "WITH due AS (SELECT c.task, c.timeout_key FROM " + T + " c WHERE " + claimable
                + " ORDER BY c.due_at LIMIT ? FOR UPDATE SKIP LOCKED)"
                + " UPDATE " + T + " t SET holder = ? FROM due"
                + " WHERE t.task = due.task AND t.timeout_key = due.timeout_key"
                + " RETURNING t.task, t.timeout_key, t.deadline, t.due_at, t.version, t.attempts, t.holder";
    }
    static void time(Connection c, String label) throws SQLException {
        for (String mode : new String[] {"auto"}) {
            long[] ns = new long[300];
            try (PreparedStatement p = c.prepareStatement(claimSql())) {
                for (int i = 0; i < ns.length; i++) {
                    long now = System.currentTimeMillis();
                    p.setLong(1, now + 10_000); p.setString(2, "me"); p.setLong(3, now - 1000); p.setLong(4, now);
                    p.setString(5, "bench"); p.setInt(6, 1000); p.setString(7, "me");
                    long t0 = System.nanoTime();
                    try (ResultSet rs = p.executeQuery()) { while (rs.next()) {} }
                    ns[i] = System.nanoTime() - t0;
                }
            }
            long[] w = Arrays.copyOfRange(ns, 50, ns.length); Arrays.sort(w);
            System.out.printf("%-40s min %.3f median %.3f p90 %.3f ms%n", label, w[0]/1e6, w[w.length/2]/1e6, w[(int)(w.length*0.9)]/1e6);
        }
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("EXPLAIN (ANALYZE, BUFFERS) " + claimSql().replaceFirst("\\?", "" + (System.currentTimeMillis()+10000)).replaceFirst("\\?", "'me'").replaceFirst("\\?", "0").replaceFirst("\\?", "0").replaceFirst("\\?", "'bench'").replaceFirst("\\?", "1000").replaceFirst("\\?", "'me'"))) {
            while (rs.next()) { String l = rs.getString(1); if (l.contains("Time") || l.contains("Scan") || l.contains("Buffers")) System.out.println("    " + l); }
        }
    }

    public static void main(String[] args) throws Exception {
        try (EmbeddedPostgresServer server = EmbeddedPostgresServer.start()) {
            String url = server.createDatabase("scratch");
            try (Connection c = DriverManager.getConnection(url, server.username(), "")) {
                String script = new String(ClaimScratch.class.getClassLoader().getResourceAsStream("io/wheeltimer/jdbc/schema-postgresql.sql").readAllBytes(), StandardCharsets.UTF_8);
                StringBuilder sb = new StringBuilder();
                for (String line : script.split("\n")) if (!line.strip().startsWith("--")) sb.append(line).append('\n');
                try (Statement s = c.createStatement()) {
                    for (String st : sb.toString().split(";")) if (!st.isBlank()) s.execute(st);
                    s.execute("INSERT INTO " + T + "_instances VALUES ('me', " + (System.currentTimeMillis() + 3_600_000L) + ")");
                }
                long far = System.currentTimeMillis() + 30L * 86_400_000L;
                try (Statement s = c.createStatement()) {
                    s.execute("INSERT INTO " + T + " (task, timeout_key, deadline, due_at, holder, version, attempts) SELECT 'bench', 'w' || g, " + far + ", " + far + ", NULL, g, 0 FROM generate_series(0, 1999) g");
                    s.execute("DELETE FROM " + T + " WHERE timeout_key LIKE 'w%'");
                    s.execute("INSERT INTO " + T + " (task, timeout_key, deadline, due_at, holder, version, attempts) SELECT 'bench', 'f' || g, " + far + " + g, " + far + " + g, NULL, g, 0 FROM generate_series(0, 485999) g");
                    s.execute("ANALYZE " + T);
                    s.execute("INSERT INTO " + T + " (task, timeout_key, deadline, due_at, holder, version, attempts) SELECT 'bench', 'f' || g, " + far + " + g, " + far + " + g, NULL, g, 0 FROM generate_series(486000, 999999) g");
                }
                time(c, "B: dead low end, stats of 486k");
                try (Statement s = c.createStatement()) { s.execute("ANALYZE " + T); }
                time(c, "D: B, then ANALYZE");
                try (Statement s = c.createStatement()) { s.execute("VACUUM " + T); }
                time(c, "C: then VACUUM");
            }
        }
    }
}
