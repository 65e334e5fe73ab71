package io.wheeltimer.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TemplateTest {

    /** The heartbeat section with every placeholder filled but {@code heartbeat-targets-rows}. */
    private static Template heartbeatWithoutTargets() {
        return Template.load()
                .section(HeartbeatReport.START, HeartbeatReport.END)
                .put("heartbeat-date", "2026-01-01")
                .put("heartbeat-machine", "a machine")
                .put("heartbeat-command", "the command")
                .put("heartbeat-quick", "")
                .put("heartbeat-rows", "| rows |");
    }

    @Test
    void fillsEveryPlaceholderOfASectionEachTimeItStands() {
        Template section = heartbeatWithoutTargets().put("heartbeat-targets-rows", "| target rows |");

        String filled = section.fill();

        assertThat(filled)
                .startsWith(HeartbeatReport.START + "\n")
                .endsWith(HeartbeatReport.END + "\n")
                .contains("Measured 2026-01-01 on a machine, with `the command`.")
                .contains("| rows |")
                .contains("| target rows |")
                .doesNotContain("{{");
    }

    @Test
    void aPlaceholderNoDataFillsIsAnErrorNamingIt() {
        Template section = heartbeatWithoutTargets();

        assertThatThrownBy(section::fill)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("placeholders no data fills: [heartbeat-targets-rows]");
    }

    @Test
    void dataWithNoPlaceholderIsAnErrorNamingIt() {
        Template whole = heartbeatWithoutTargets().put("heartbeat-targets-rows", "x");
        whole.put("durable-rows", "x");
        assertThatThrownBy(whole::fill)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("data with no placeholder")
                .hasMessageContaining("[durable-rows]");
    }

    @Test
    void aPlaceholderFilledTwiceIsAnError() {
        Template template = Template.load().put("date", "2026-01-01");

        assertThatThrownBy(() -> template.put("date", "2026-01-02"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("placeholder date");
    }

    @Test
    void aSectionWithoutItsMarkersIsAnError() {
        assertThatThrownBy(() -> Template.load().section("<!-- nowhere: start -->", "<!-- nowhere: end -->"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("<!-- nowhere: start -->");
    }
}
