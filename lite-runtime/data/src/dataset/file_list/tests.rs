use super::*;

fn err(text: &str) -> FileListError {
    FileList::parse(text, Path::new("d")).unwrap_err()
}

#[test]
fn parses_relative_and_absolute_paths() {
    let l = FileList::parse("3\r\na\n  /x/b \nsub/c\n\n\n", Path::new("d")).unwrap();
    let want = [Path::new("d/a"), Path::new("/x/b"), Path::new("d/sub/c")];
    assert_eq!(l.paths(), want);
    assert_eq!(
        FileList::parse("0\n", Path::new("d"))
            .unwrap()
            .paths()
            .len(),
        0
    );
}

#[test]
fn names_the_line_at_fault() {
    assert_eq!(err("").kind, FileListErrorKind::MissingCount);
    assert_eq!(err("\n \n").kind, FileListErrorKind::MissingCount);
    let e = err("two\na\nb\n");
    assert_eq!(
        (e.line, e.kind),
        (1, FileListErrorKind::BadCount { text: "two".into() })
    );
    assert!(matches!(
        err("-1\n").kind,
        FileListErrorKind::BadCount { .. }
    ));
    let e = err("3\na\nb\n");
    let kind = FileListErrorKind::CountMismatch {
        announced: 3,
        found: 2,
    };
    assert_eq!((e.line, e.kind), (1, kind));
    let e = err("3\na\n\nb\n");
    assert_eq!((e.line, e.kind), (3, FileListErrorKind::EmptyPath));
}
