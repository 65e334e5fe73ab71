package io.wheeltimer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.ClassPathResource;

/**
 * Every schema the docs show is the one the jar ships: an SQL block that names a database's schema
 * ({@code -- Durable timeouts (PostgreSQL)} or {@code -- schema-mariadb.sql}) has the statements of
 * {@code io/wheeltimer/jdbc/schema-<database>.sql}, line for line (comments aside), so that a table
 * created from the guide is one the timer starts on.
 */
class DocsSchemaTest {

    private static final Pattern NAMES_A_SCHEMA =
            Pattern.compile("^-- (?:schema-([a-z0-9]+)\\.sql|Durable timeouts \\(([A-Za-z0-9]+)\\))");
    private static final Map<String, String> SCRIPT_OF =
            Map.of("PostgreSQL", "postgresql", "MariaDB", "mariadb", "MySQL", "mysql", "H2", "h2");

    @Test
    void theSchemasTheDocsShowAreTheShippedOnes() throws IOException {
        int compared = 0;
        for (DocFiles.Block block : DocFiles.allBlocks()) {
            Matcher names = NAMES_A_SCHEMA.matcher(block.body());
            if (!block.language().equals("sql") || !names.find()) {
                continue;
            }
            String script = names.group(1) != null ? names.group(1) : SCRIPT_OF.get(names.group(2));
            String shipped = new ClassPathResource("io/wheeltimer/jdbc/schema-" + script + ".sql")
                    .getContentAsString(StandardCharsets.UTF_8);
            assertThat(statements(block.body()))
                    .as("the schema shown at %s:%d against schema-%s.sql", block.file(), block.line(), script)
                    .isEqualTo(statements(shipped));
            compared++;
        }
        assertThat(compared).as("schema blocks in the docs").isGreaterThanOrEqualTo(3);
    }

    /** The lines that are not comments, without trailing blanks. */
    private static List<String> statements(String sql) {
        return sql.lines()
                .map(String::stripTrailing)
                .filter(line -> !line.isBlank() && !line.strip().startsWith("--"))
                .toList();
    }
}
