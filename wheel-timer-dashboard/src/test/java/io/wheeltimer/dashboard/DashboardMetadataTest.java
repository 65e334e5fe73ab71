package io.wheeltimer.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/**
 * The dashboard's properties reach the IDE, each named, described and with its default; and the
 * guides name no other, each with the default the metadata gives.
 */
class DashboardMetadataTest {

    /** The repository's root: the module's parent (the tests run in the module's directory). */
    private static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    private static final Pattern KEY = Pattern.compile("wheel-timer\\.dashboard\\.[a-z][a-z-]*[a-z]");

    private static final Pattern TABLE_ROW =
            Pattern.compile("^\\| `(wheel-timer\\.dashboard\\.[a-z-]+)` \\| `([^`]*)` \\|");

    @Test
    void theGuideHasARowForEveryPropertyWithItsDefaultAndTheDocsNameNoOther() throws Exception {
        Map<String, Object> defaults = new TreeMap<>();
        for (Map<String, Object> property : dashboardMetadata()) {
            defaults.put(property.get("name").toString(), property.get("defaultValue"));
        }
        Map<String, String> rows = new TreeMap<>();
        for (String line : Files.readAllLines(ROOT.resolve("docs/dashboard.md"))) {
            Matcher row = TABLE_ROW.matcher(line);
            if (row.find()) {
                rows.put(row.group(1), row.group(2));
            }
        }
        assertThat(rows.keySet()).containsExactlyInAnyOrderElementsOf(defaults.keySet());
        rows.forEach((key, cell) -> assertThat(cell)
                .as("the default docs/dashboard.md gives %s", key)
                .isEqualToIgnoringCase(defaults.get(key).toString()));

        List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> files = Files.walk(ROOT.resolve("docs"))) {
            files.filter(f -> f.toString().endsWith(".md")).forEach(docs::add);
        }
        for (Path doc : docs) {
            Matcher named = KEY.matcher(Files.readString(doc));
            while (named.find()) {
                assertThat(defaults)
                        .as("a property %s names", ROOT.relativize(doc))
                        .containsKey(named.group());
            }
        }
    }

    @Test
    void everyPropertyHasADescriptionAndADefault() throws Exception {
        List<Map<String, Object>> dashboard = dashboardMetadata();
        assertThat(dashboard)
                .extracting(p -> p.get("name"))
                .containsExactlyInAnyOrder(
                        "wheel-timer.dashboard.enabled",
                        "wheel-timer.dashboard.path",
                        "wheel-timer.dashboard.refresh",
                        "wheel-timer.dashboard.allow-remote",
                        "wheel-timer.dashboard.read-only",
                        "wheel-timer.dashboard.show-data");
        assertThat(dashboard).allSatisfy(p -> {
            assertThat(p.get("description")).asString().isNotBlank();
            assertThat(p).containsKey("defaultValue");
        });
    }

    /** The properties of the metadata that holds the dashboard's (another module's is on the class path too). */
    private List<Map<String, Object>> dashboardMetadata() throws Exception {
        List<Map<String, Object>> dashboard = null;
        for (URL url : Collections.list(
                getClass().getClassLoader().getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = url.openStream()) {
                @SuppressWarnings("unchecked")
                List<Map<String, Object>> properties = (List<Map<String, Object>>)
                        JsonMapper.builder().build().readValue(in, Map.class).get("properties");
                if (properties.stream().anyMatch(p -> p.get("name").toString().startsWith("wheel-timer.dashboard."))) {
                    dashboard = properties;
                }
            }
        }
        assertThat(dashboard).isNotNull();
        return dashboard;
    }
}
