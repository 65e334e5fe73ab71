package io.wheeltimer.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TemplateTest {

    @Test
    void fillsEveryPlaceholderOfASectionEachTimeItStands() {
        Template section = Template.load().section(HeartbeatReport.START, HeartbeatReport.END);
        section.put("heartbeat-date", "2026-01-01")
                .put("heartbeat-machine", "a machine")
                .put("heartbeat-command", "the command")
                .put("heartbeat-quick", "")
                .put("heartbeat-rows", "| rows |")
                .put("heartbeat-targets-rows", "| target rows |");

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
        Template section = Template.load().section(HeartbeatReport.START, HeartbeatReport.END);
        section.put("heartbeat-date", "2026-01-01")
                .put("heartbeat-machine", "a machine")
                .put("heartbeat-command", "the command")
                .put("heartbeat-quick", "")
                .put("heartbeat-rows", "| rows |");

        assertThatThrownBy(section::fill)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("placeholders no data fills: [heartbeat-targets-rows]");
    }

    @Test
    void dataWithNoPlaceholderIsAnErrorNamingIt() {
        Template whole = Template.load().section(HeartbeatReport.START, HeartbeatReport.END);
        for (String placeholder : new String[] {
            "heartbeat-date",
            "heartbeat-machine",
            "heartbeat-command",
            "heartbeat-quick",
            "heartbeat-rows",
            "heartbeat-targets-rows"
        }) {
            whole.put(placeholder, "x");
        }
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
