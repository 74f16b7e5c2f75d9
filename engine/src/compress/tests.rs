use super::*;

const CODECS: [Compressor; 5] = [
    Compressor::Lz4,
    Compressor::Snappy,
    Compressor::Deflate,
    Compressor::Zstd,
    Compressor::Noop,
];

/// Deterministic pseudo-random bytes (xorshift64*): incompressible.
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            (x.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8
        })
        .collect()
}

/// Text-like bytes with repeats: compressible.
fn text(len: usize) -> Vec<u8> {
    let words: [&[u8]; 6] = [
        b"partition ",
        b"clustering ",
        b"0123456789",
        b"cell ",
        b"tombstone ",
        b"\x00\x01",
    ];
    let mut out = Vec::with_capacity(len);
    let mut i = 0usize;
    while out.len() < len {
        out.extend_from_slice(words[(i * 7 + i / 3) % words.len()]);
        i += 1;
    }
    out.truncate(len);
    out
}

fn samples() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("empty", Vec::new()),
        ("one byte", vec![42]),
        ("100 text", text(100)),
        ("16 KiB text", text(16 * 1024)),
        ("16 KiB zeros", vec![0; 16 * 1024]),
        ("64 KiB noise", noise(64 * 1024, 7)),
        ("64 KiB half noise", {
            let mut v = text(32 * 1024);
            v.extend(noise(32 * 1024, 9));
            v
        }),
        ("1000 noise", noise(1000, 3)),
    ]
}

#[test]
fn every_codec_round_trips_every_sample() {
    let mut stored = Vec::new();
    let mut out = Vec::new();
    for codec in &CODECS {
        for (name, data) in samples() {
            compress_chunk(codec, &data, &mut stored).unwrap();
            decompress_chunk(codec, &stored, data.len(), &mut out)
                .unwrap_or_else(|e| panic!("{codec:?} {name}: {e}"));
            assert_eq!(out, data, "{codec:?} {name}");
            // Compressible data shrinks (except under Noop).
            if name == "16 KiB zeros" && *codec != Compressor::Noop {
                assert!(stored.len() < 1024, "{codec:?}: {} bytes", stored.len());
            }
        }
    }
}

#[test]
fn framing_matches_cassandra() {
    let data = text(5000);
    let mut stored = Vec::new();
    compress_chunk(&Compressor::Lz4, &data, &mut stored).unwrap();
    assert_eq!(stored[..4], 5000u32.to_le_bytes());
    compress_chunk(&Compressor::Snappy, &data, &mut stored).unwrap();
    // LEB128 5000 = 0x88 0x27.
    assert_eq!(stored[..2], [0x88, 0x27]);
    compress_chunk(&Compressor::Deflate, &data, &mut stored).unwrap();
    // zlib header of java.util.zip.Deflater's default level.
    assert_eq!(stored[..2], [0x78, 0x9c]);
    let adler = adler32::RollingAdler32::from_buffer(&data).hash();
    assert_eq!(stored[stored.len() - 4..], adler.to_be_bytes());
    compress_chunk(&Compressor::Deflate, &[], &mut stored).unwrap();
    assert!(
        stored.is_empty(),
        "DeflateCompressor stores an empty chunk as 0 bytes"
    );
    compress_chunk(&Compressor::Zstd, &data, &mut stored).unwrap();
    assert_eq!(stored[..4], [0x28, 0xb5, 0x2f, 0xfd]);
    // Frame header descriptor: content-checksum flag (bit 2) set.
    assert_eq!(stored[4] & 0x04, 0x04);
}

#[test]
fn foreign_encoders_decode() {
    // A zlib stream of empty input from another writer is also read as 0 bytes.
    let empty_stream = miniz_oxide::deflate::compress_to_vec_zlib(&[], 6);
    let mut out = vec![1, 2, 3];
    decompress_chunk(&Compressor::Deflate, &empty_stream, 0, &mut out).unwrap();
    assert!(out.is_empty());
    // zlib at level 1 and 9.
    let data = text(20_000);
    for level in [1, 9] {
        let s = miniz_oxide::deflate::compress_to_vec_zlib(&data, level);
        decompress_chunk(&Compressor::Deflate, &s, data.len(), &mut out).unwrap();
        assert_eq!(out, data);
    }
    // Two concatenated zstd frames and a skippable frame decode as one chunk.
    let (a, b) = data.split_at(7000);
    let mut s = Vec::new();
    ruzstd::encoding::compress(a, &mut s, ruzstd::encoding::CompressionLevel::Fastest);
    s.extend_from_slice(&0x184d_2a50u32.to_le_bytes());
    s.extend_from_slice(&3u32.to_le_bytes());
    s.extend_from_slice(b"xyz");
    ruzstd::encoding::compress(b, &mut s, ruzstd::encoding::CompressionLevel::Uncompressed);
    decompress_chunk(&Compressor::Zstd, &s, data.len(), &mut out).unwrap();
    assert_eq!(out, data);
}

#[test]
fn wrong_expected_lengths_are_errors() {
    let data = text(3000);
    let mut stored = Vec::new();
    let mut out = Vec::new();
    for codec in &CODECS {
        compress_chunk(codec, &data, &mut stored).unwrap();
        // Asked for more than the chunk holds.
        let e = decompress_chunk(codec, &stored, 4000, &mut out).unwrap_err();
        assert_eq!(
            e,
            CodecError::WrongLength {
                expected_bytes: 4000,
                actual_bytes: 3000
            },
            "{codec:?}"
        );
        // Asked for less: every codec but Noop refuses to produce more than the bound.
        let r = decompress_chunk(codec, &stored, 2999, &mut out);
        if *codec == Compressor::Noop {
            assert_eq!(out.len(), 2999);
        } else {
            assert!(
                matches!(
                    r,
                    Err(CodecError::LengthTooLarge {
                        limit_bytes: 2999,
                        ..
                    })
                ),
                "{codec:?}: {r:?}"
            );
        }
    }
    assert_eq!(
        decompress_chunk(&Compressor::Unknown("com.acme.X".into()), b"x", 1, &mut out),
        Err(CodecError::Unsupported("com.acme.X".into()))
    );
    assert_eq!(
        compress_chunk(&Compressor::Unknown("com.acme.X".into()), b"x", &mut out),
        Err(CodecError::Unsupported("com.acme.X".into()))
    );
}

#[test]
fn lying_lengths_are_errors_not_allocations() {
    let data = text(20_000);
    let mut stored = Vec::new();
    let mut out = Vec::new();
    // LZ4: the little-endian length says 4 GiB.
    compress_chunk(&Compressor::Lz4, &data, &mut stored).unwrap();
    stored[..4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert_eq!(
        decompress_chunk(&Compressor::Lz4, &stored, data.len(), &mut out),
        Err(CodecError::LengthTooLarge {
            claimed_bytes: u64::from(u32::MAX),
            limit_bytes: 20_000
        })
    );
    assert!(out.capacity() <= 20_000);
    // Snappy: the preamble says 2^32 - 1.
    compress_chunk(&Compressor::Snappy, &data, &mut stored).unwrap();
    let mut lying = vec![0xff, 0xff, 0xff, 0xff, 0x0f];
    lying.extend_from_slice(&stored[3..]);
    assert!(matches!(
        decompress_chunk(&Compressor::Snappy, &lying, data.len(), &mut out),
        Err(CodecError::LengthTooLarge { .. }) | Err(CodecError::Corrupt(_))
    ));
    assert!(out.capacity() <= 20_000);
    // Zstd: a single-segment frame header that declares 1 GiB of content.
    let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, 0xe4];
    frame.extend_from_slice(&(1u64 << 30).to_le_bytes());
    frame.extend_from_slice(&[0x01, 0x00, 0x00]);
    assert!(matches!(
        decompress_chunk(&Compressor::Zstd, &frame, 16_384, &mut out),
        Err(CodecError::LengthTooLarge { .. }) | Err(CodecError::Corrupt(_))
    ));
    // Zstd: a window of 2 GiB (window descriptor 0xa8) without content size.
    let frame = [0x28, 0xb5, 0x2f, 0xfd, 0x00, 0xa8, 0x01, 0x00, 0x00];
    assert!(matches!(
        decompress_chunk(&Compressor::Zstd, &frame, 16_384, &mut out),
        Err(CodecError::Corrupt(_))
    ));
}

#[test]
fn decompression_bombs_stop_at_the_bound() {
    let zeros = vec![0u8; 8 << 20];
    let mut stored = Vec::new();
    let mut out = Vec::new();
    for codec in [Compressor::Deflate, Compressor::Zstd, Compressor::Snappy] {
        compress_chunk(&codec, &zeros, &mut stored).unwrap();
        assert!(stored.len() < 400_000, "{codec:?}: {}", stored.len());
        let r = decompress_chunk(&codec, &stored, 65_536, &mut out);
        assert!(
            matches!(
                r,
                Err(CodecError::LengthTooLarge {
                    limit_bytes: 65_536,
                    ..
                })
            ),
            "{codec:?}: {r:?}"
        );
        // The output never grew far past the bound (one zstd window of 1 MiB at most).
        assert!(out.capacity() <= 2 << 20, "{codec:?}: {}", out.capacity());
    }
}

/// Every truncation and every single-byte flip of a real chunk of each codec: `Ok` or `Err`,
/// never a panic; and a codec with its own checksum (zlib's Adler-32, zstd's XXH64) never hands
/// back wrong bytes as if they were right.
#[test]
fn truncations_and_flips_never_panic() {
    let mut data = text(6000);
    data.extend(noise(2000, 11));
    let mut stored = Vec::new();
    let mut out = Vec::new();
    for codec in &CODECS {
        compress_chunk(codec, &data, &mut stored).unwrap();
        let mut truncated_ok = 0;
        for n in 0..stored.len() {
            if decompress_chunk(codec, &stored[..n], data.len(), &mut out).is_ok() {
                truncated_ok += 1;
            }
        }
        // A prefix never yields all 8000 bytes, except raw bytes under Noop (none shorter either).
        assert_eq!(truncated_ok, 0, "{codec:?}");
        let mut wrong_but_ok = 0;
        for i in 0..stored.len() {
            for mask in [0x01u8, 0x80, 0xff] {
                let mut flipped = stored.clone();
                flipped[i] ^= mask;
                if decompress_chunk(codec, &flipped, data.len(), &mut out).is_ok() && out != data {
                    wrong_but_ok += 1;
                }
            }
        }
        if matches!(codec, Compressor::Deflate | Compressor::Zstd) {
            assert_eq!(wrong_but_ok, 0, "{codec:?} returned corrupt data");
        }
    }
}

#[test]
fn class_names_short_or_qualified() {
    assert_eq!(
        Compressor::from_class_name("LZ4Compressor"),
        Compressor::Lz4
    );
    assert_eq!(
        Compressor::from_class_name("org.apache.cassandra.io.compress.ZstdCompressor"),
        Compressor::Zstd
    );
    assert_eq!(Compressor::Snappy.codec_name(), "snappy");
    assert!(matches!(
        Compressor::from_class_name("com.acme.Custom"),
        Compressor::Unknown(_)
    ));
}

/// A chunk length CompressionInfo.db claims (1 GiB here) sizes no buffer: a few stored bytes
/// can hold only so much, whatever the codec.
#[test]
fn an_expected_length_no_stored_bytes_could_hold_is_refused_before_allocating() {
    let mut stored = Vec::new();
    let mut out = Vec::new();
    for codec in &CODECS {
        compress_chunk(codec, b"abc", &mut stored).unwrap();
        if *codec == Compressor::Noop {
            continue;
        }
        let e = decompress_chunk(codec, &stored, 1 << 30, &mut out).unwrap_err();
        assert!(
            matches!(e, CodecError::LengthTooLarge { claimed_bytes, .. } if claimed_bytes == 1 << 30),
            "{codec:?}: {e:?}"
        );
        assert!(out.capacity() < 1 << 20, "{codec:?}");
        assert!(max_decompressed_bytes(codec, stored.len()) < 1 << 30);
    }
}
