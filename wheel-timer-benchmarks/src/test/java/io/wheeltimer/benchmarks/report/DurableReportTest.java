package io.wheeltimer.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The durable section from {@code durable.jsonl}: PostgreSQL's lines (a line naming no database is one)
 * in its main tables; MariaDB's, when there are any, in a subsection of their own with their own targets,
 * and in the chart beside PostgreSQL's.
 */
class DurableReportTest {

    @TempDir
    Path dir;

    @Test
    void mariaDbLinesGetTheirOwnSubsectionAndTargets() throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(lateness(null, "DURABLE", 21.5));
        lines.add(lateness("postgresql", "DB_SCHEDULER", 9_500));
        lines.add(lateness("postgresql", "DB_SCHEDULER_TUNED", 210));
        lines.add(lateness("mariadb", "DURABLE", 64.25));
        lines.add(lateness("mariadb", "DB_SCHEDULER", 9_800));
        lines.add(lateness("mariadb", "DB_SCHEDULER_TUNED", 250));

        String section = section(lines);

        String postgres = section.substring(0, section.indexOf("### On MariaDB"));
        String mariaDb = section.substring(section.indexOf("### On MariaDB"));
        assertThat(postgres)
                .contains("durable timeouts started their handlers within 21.5 ms")
                .contains("| lateness p99 ≤ 50 ms | 21.5 ms | yes |")
                .doesNotContain("64.3");
        assertThat(mariaDb)
                .contains("MariaDB (10.11.19-MariaDB-0+deb12u1)")
                .contains("On MariaDB, durable timeouts started their handlers within 64.3 ms")
                .contains("| lateness p99 ≤ 50 ms | 64.3 ms | **no** |")
                .contains("lateness p99 is 64.3 ms, 14.3 ms over 50 ms")
                .doesNotContain("days ahead") // the far experiment runs on PostgreSQL only
                .doesNotContain("{{");
        assertThat(Files.readString(dir.resolve(DurableReport.CHART)))
                .contains("durable timeouts (10 ms tick), PostgreSQL")
                .contains("db-scheduler, tuned, MariaDB")
                .contains("64.3 ms");
    }

    @Test
    void withoutMariaDbLinesTheSectionIsPostgreSqlsAlone() throws IOException {
        String section = section(List.of(
                lateness("postgresql", "DURABLE", 21.5),
                lateness("postgresql", "DB_SCHEDULER", 9_500),
                lateness("postgresql", "DB_SCHEDULER_TUNED", 210)));

        assertThat(section).doesNotContain("MariaDB").contains("| lateness p99 ≤ 50 ms | 21.5 ms | yes |");
        assertThat(Files.readString(dir.resolve(DurableReport.CHART))).doesNotContain("PostgreSQL");
    }

    @Test
    void bulkTargetsAreJudgedWithCommitsFlushedAndTheUnflushedRunIsShownBesideThem() throws IOException {
        String section = section(List.of(
                lateness("postgresql", "DURABLE", 21.5),
                bulk("bulk", 150, 3_000, 200),
                bulk("bulk-unflushed", 100, 500, 130)));

        assertThat(section)
                .contains("commits flushed to disk: ≥ 10 × as fast as 10,000 schedule calls that each commit "
                        + "(3000 ms) | 150 ms (20.0 ×) | yes |")
                .contains("as fast as db-scheduler's scheduleBatch (200 ms) | 150 ms (1.33 ×) | yes |")
                .contains("| flushed (PostgreSQL's defaults) | one `scheduleAll` | 150 | 150, 150 |")
                .contains("| not flushed (fsync off) | `schedule` calls, each committing | 500 | 500, 500 |")
                .contains("one `scheduleAll` is 5.00 × as fast as the single calls, against 20.0 ×")
                .doesNotContain("{{");
    }

    /** The durable section of {@code benchmarks.md} that {@link DurableReport#main} writes from {@code lines}. */
    private String section(List<String> lines) throws IOException {
        Path jsonl = dir.resolve("durable.jsonl");
        Files.write(jsonl, lines);
        DurableReport.main(new String[] {jsonl.toString(), dir.toString(), "the command"});
        String markdown = Files.readString(dir.resolve("benchmarks.md"));
        return markdown.substring(
                markdown.indexOf(DurableReport.START),
                markdown.indexOf(DurableReport.END) + DurableReport.END.length());
    }

    private static String bulk(String experiment, long all, long single, long dbScheduler) {
        return String.format(
                Locale.ROOT,
                "{\"experiment\":\"%s\",\"contender\":\"DURABLE\",\"database\":\"postgresql\",\"timeouts\":10000,"
                        + "\"scheduleAllMillis\":[%d,%d],\"singleSchedulesMillis\":[%d,%d],"
                        + "\"dbSchedulerScheduleBatchMillis\":[%d,%d],\"scheduleAllMedianMillis\":%d,"
                        + "\"singleSchedulesMedianMillis\":%d,\"dbSchedulerScheduleBatchMedianMillis\":%d}",
                experiment,
                all,
                all,
                single,
                single,
                dbScheduler,
                dbScheduler,
                all,
                single,
                dbScheduler);
    }

    private static String lateness(String database, String contender, double p99) {
        return String.format(
                Locale.ROOT,
                "{\"experiment\":\"lateness\",\"contender\":\"%s\",%s\"quick\":false,\"timeouts\":20000,"
                        + "\"spreadMillis\":10000,\"minLeadMillis\":30000,\"p50Millis\":%s,\"p99Millis\":%s,"
                        + "\"maxMillis\":%s,\"ran\":20000,\"duplicates\":0,\"missing\":0,\"leftPending\":0,"
                        + "\"loadAverage\":1.5}",
                contender,
                database == null
                        ? ""
                        : "\"database\":\"" + database + "\",\"databaseVersion\":\""
                                + (database.equals("mariadb") ? "10.11.19-MariaDB-0+deb12u1" : "17.2") + "\",",
                p99 / 2,
                p99,
                p99 * 2);
    }
}
