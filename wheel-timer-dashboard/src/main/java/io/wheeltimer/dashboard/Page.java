package io.wheeltimer.dashboard;

/**
 * The frame of every page: head, styles (inline, a few lines), the one script (htmx, from this jar),
 * and the navigation. Without JavaScript every page reads the same; with it, the overview's figures
 * refresh in place.
 */
final class Page {

    private static final String STYLE = "body{font:14px/1.4 system-ui,sans-serif;margin:1rem 2rem;color:#222}"
            + "h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:1.5rem}h2 small{font-weight:normal;color:#666}"
            + "table.grid{border-collapse:collapse;margin:.5rem 0}table.grid td,table.grid th{border:1px solid #ddd;"
            + "padding:.25rem .5rem;text-align:left;vertical-align:middle}td.num{text-align:right;"
            + "font-variant-numeric:tabular-nums}.card{display:inline-block;vertical-align:top;border:1px solid #ddd;"
            + "padding:.5rem 1rem;margin:0 1rem 1rem 0;min-width:18rem}dl{display:grid;grid-template-columns:auto"
            + " auto;gap:0 1rem}dd{margin:0}.legend span{margin-right:1rem}.legend i{display:inline-block;width:.8rem;"
            + "height:.8rem;margin-right:.3rem}form.action{display:inline}.note{color:#a33}nav a{margin-right:1rem}"
            + "code{white-space:pre-wrap;word-break:break-all;max-width:30rem;display:inline-block}";

    private Page() {}

    static String of(Viewer viewer, String title, String body) {
        return "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\""
                + " content=\"width=device-width, initial-scale=1\"><title>"
                + Html.text(title) + "</title><style>" + STYLE + "</style><script src=\"" + viewer.path()
                + "/assets/htmx.min.js\" defer></script></head><body><h1><a href=\"" + viewer.path()
                + "\">wheel-timer</a> " + Html.text(title) + "</h1>" + body + "</body></html>";
    }
}
