package io.wheeltimer.sample;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.Charset;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.springframework.core.MethodParameter;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.MediaType;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter;

/**
 * Refuses a request body that is not well-formed text in its charset (UTF-8 unless the Content-Type
 * names another) before the JSON parser reads it. Jackson decodes UTF-8 leniently: the overlong
 * {@code C0 BC} would become {@code <} and {@code E0 80 AF} a {@code /}, past any check on the
 * decoded text. The JDK's decoder, set to report, accepts only the shortest form and no encoded
 * surrogates. The body is at most {@code orders.max-request-size}, so reading it whole is cheap.
 */
@ControllerAdvice
class StrictBodyDecoding extends RequestBodyAdviceAdapter {

    /** The body is not text in its charset; {@link ProblemHandler} turns it into 400. */
    static final class Malformed extends IOException {
        Malformed(Charset charset, int offset, byte[] bytes) {
            super("The body is not valid " + charset.name() + " at offset " + offset + " ("
                    + (bytes.length == 1 ? "byte " : "bytes ")
                    + HexFormat.ofDelimiter(" ").withUpperCase().formatHex(bytes)
                    + "): only well-formed text is accepted, without overlong forms or encoded surrogates.");
        }
    }

    @Override
    public boolean supports(
            MethodParameter parameter, Type targetType, Class<? extends HttpMessageConverter<?>> converterType) {
        return true;
    }

    @Override
    public HttpInputMessage beforeBodyRead(
            HttpInputMessage input,
            MethodParameter parameter,
            Type targetType,
            Class<? extends HttpMessageConverter<?>> converterType)
            throws IOException {
        byte[] body = input.getBody().readAllBytes();
        MediaType type = input.getHeaders().getContentType();
        Charset charset = type != null && type.getCharset() != null ? type.getCharset() : StandardCharsets.UTF_8;
        check(body, charset);
        HttpHeaders headers = input.getHeaders();
        return new HttpInputMessage() {
            @Override
            public InputStream getBody() {
                return new ByteArrayInputStream(body);
            }

            @Override
            public HttpHeaders getHeaders() {
                return headers;
            }
        };
    }

    static void check(byte[] body, Charset charset) throws Malformed {
        CharsetDecoder decoder = charset.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(body);
        CharBuffer out = CharBuffer.allocate(1024); // decoded only to be checked, then dropped
        CoderResult result;
        do {
            out.clear();
            result = decoder.decode(in, out, true); // true: a sequence cut short at the end is malformed too
            if (result.isError()) {
                int at = in.position();
                byte[] bad = new byte[Math.min(result.length(), body.length - at)];
                System.arraycopy(body, at, bad, 0, bad.length);
                throw new Malformed(charset, at, bad);
            }
        } while (result.isOverflow());
    }
}
