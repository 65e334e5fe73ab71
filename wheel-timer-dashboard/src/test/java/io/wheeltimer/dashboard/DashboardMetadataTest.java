package io.wheeltimer.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** The dashboard's properties reach the IDE: each named, described and with its default. */
class DashboardMetadataTest {

    @Test
    void everyPropertyHasADescriptionAndADefault() throws Exception {
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
}
